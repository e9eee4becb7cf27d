// The failure browser: filter the rows by kind and group, and by text. Plain DOM; nothing is
// fetched and no text from the data is ever parsed as markup (rows are only shown or hidden).
(function () {
  "use strict";
  var table = document.getElementById("failure-table");
  if (!table) { return; }
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
  var kind = document.getElementById("kind-filter");
  var group = document.getElementById("group-filter");
  var search = document.getElementById("search");
  var shownCount = document.getElementById("shown-count");
  function apply() {
    var wantedKind = kind ? kind.value : "";
    var wantedGroup = group ? group.value : "";
    var query = search.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var keep = (!wantedKind || row.getAttribute("data-kind") === wantedKind) &&
        (!wantedGroup || row.getAttribute("data-group") === wantedGroup) &&
        (!query || texts[i].indexOf(query) !== -1);
      row.hidden = !keep;
      if (keep) { shown++; }
    }
    shownCount.textContent = shown + " of " + rows.length + " rows shown";
  }
  [kind, group].forEach(function (control) {
    if (control) { control.addEventListener("change", apply); }
  });
  search.addEventListener("input", apply);
  table.closest("section").querySelector("form").addEventListener("submit", function (event) {
    event.preventDefault();
  });
  apply();
}());
