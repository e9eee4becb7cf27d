r"""is_refusal: whether an answer opens by refusing the request and gives no answer after it.

The detector recognises a reply that *opens* with a refusal ("I'm sorry, but I can't help with
that", "I cannot assist with", "I won't provide", "As an AI language model, I cannot", "I'm
unable to comply") and does not answer after it. Precision comes first: a grader that calls an
answer a refusal hides a wrong answer behind the wrong reason, so each of these stays silent:

- words that only look like a refusal: "I'm sorry to hear that.", "This is not legal advice.",
  "As an AI engineer, I build systems.", "It is not appropriate to restart; the answer is 45.";
- a refusal that is quoted or reported, not made: 'He said "I can't help with that."' (the reply
  must open with the refusal itself);
- an empty reply (that is a ``parse_failure``);
- a reply that refuses and then answers: "I can't help with that, but the answer is 45.", "I
  can't help with that. Paris." (see :data:`ANSWER_ANYWAY_CLAUSE`: any later sentence that is
  not an apology, an offer of other help or a reason for refusing is an answer); a limit of
  the model followed by an answer ("I can't be certain, but ...", "I cannot browse the web, but
  ...") is no refusal of the request at all;
- a report that the document does not hold the answer ("I cannot answer this from the
  provided text."): that is :func:`gradeframe.is_not_found`'s, and on an unanswerable item the
  right answer.

The phrases are regular expressions that Polars runs (no lookaround), on folded text (lower
case, one space between words), built from the named pieces below. Each is anchored at the start
of the text, so the search costs next to nothing on answers that do not open with one; only the
few that do are checked for an answer after the phrase (``on_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from gradeframe._delegate import returns_boolean
from gradeframe._inputs import IntoExpr, to_expr
from gradeframe.fold import fold
from gradeframe.not_found import not_found_in_folded, phrase_pattern, phrases_in_folded

__all__ = ["DEFAULT_REFUSAL_PHRASES", "is_refusal"]


def _any(*words: str) -> str:
    """Return a non-capturing alternation of regex pieces."""
    return "(?:" + "|".join(words) + ")"


# --------------------------------------------------------------------------------------------
# Pieces. Folded text is lower case with single spaces, so a space is written " ".
# --------------------------------------------------------------------------------------------

#: A word boundary. ASCII, as in :mod:`gradeframe.not_found`: the phrases' words are ASCII and
#: Polars' fast regex engine cannot run the Unicode ``\b``.
_B: Final = r"(?-u:\b)"

#: A straight or curly apostrophe ("can't", "can’t").
_A: Final = "['\u2019\u02bc]"

#: "I am" and "I'm"; "we are" and "we're".
_I_AM: Final = _any("i am", f"i{_A}m", "we are", f"we{_A}re")

#: "I" or "we" as the subject.
_I: Final = _any("i", "we")

#: What may open the reply before the refusal: an apology ("I'm sorry", "Sorry", "I apologize",
#: "Unfortunately", "I'm afraid", "No"), each with an optional ", but".
_APOLOGY: Final = _any(
    _I_AM + r" (?:so |very |really |truly |terribly |deeply )?sorry",
    r"sorry",
    r"(?:i |we )?(?:sincerely )?apologi[sz]e",
    r"(?:my )?apologies",
    _I + r" (?:must |have to )?regret(?: to (?:say|inform you|tell you))?(?: that)?",
    r"unfortunately",
    r"regrettably",
    _I_AM + r" afraid",
    r"no",
)

#: "As an AI", "As an AI language model", "As a large language model", "As an assistant". Only
#: these nouns: "As an AI engineer, I build systems." is no refusal.
_AS_AN_AI: Final = (
    r"as (?:an|a) (?:(?:large |responsible )?(?:ai|language model|llm|assistant|chatbot)"
    r"(?: (?:language model|assistant|model|system|chatbot))?)"
)

#: What joins an opener to what follows: a space after ",", ".", "!", ";", ":" or nothing, or a
#: dash ("-", "--", "—"; an en dash is folded to "-") with or without spaces around it.
_JOIN: Final = r"(?:[,.!;:]? | ?(?:--?|\u2014|\u2015) ?)"

#: Up to two openers, each followed by its punctuation and maybe "but" ("I'm sorry, but as an
#: AI language model, I cannot ...", "I'm sorry — I can't ..."), after markdown emphasis
#: ("**I'm sorry, ...**"). A quote mark is not allowed: a quoted refusal is dialogue, not the
#: answer's own.
_OPENERS: Final = (
    r"(?:\*{1,2}|_{1,2})?(?:" + _any(_APOLOGY, _AS_AN_AI) + _JOIN + r"(?:but |however,? )?){0,2}"
)

#: The subject and the refusing modal: "I can't", "I cannot", "I won't", "I will not", "I'm
#: unable to", "I am not able to", "I'm not going to", "we are not allowed to", "I refuse to",
#: "I must decline to", ...
_REFUSING: Final = _any(
    _I
    + " "
    + _any(
        r"can ?not",
        f"can{_A}t",
        r"could not",
        f"couldn{_A}t",
        r"will not",
        f"won{_A}t",
        r"would not",
        f"wouldn{_A}t",
    ),
    _I_AM + r" (?:not able|unable|not going|not allowed|not permitted|not in a position) to",
    _I
    + r" (?:must |have to |will have to |need to |"
    + _A
    + r"ll have to )?(?:respectfully |politely )?(?:decline|refuse) to",
)

#: A second modal joined to the first: "I cannot and will not provide ...".
_AND_REFUSING: Final = r"(?: and " + _any(r"can ?not", f"can{_A}t", r"will not", f"won{_A}t") + ")?"

#: Adverbs between the modal and the verb ("I cannot in good conscience provide").
_ADVERB: Final = (
    r"(?:(?:directly|really|actually|currently|in good conscience|ethically|legally"
    r"|responsibly|safely|personally|simply|fully|further|be able to|possibly) ){0,2}"
)

#: What is refused: help, assist, provide, comply, fulfil, answer, do that, engage, support,
#: ... ("help" only where it is the request's: "I can't help but wonder" is another idiom).
_VERB: Final = _any(
    r"help(?: (?:you|with|on|in|out|here|there|this|that|it|anyone|someone|them|further"
    r"|fulfil|create|provide|answer|write)" + _B + r"|[^ \p{L}\p{N}\p{M}]|$)",
    r"(?:assist|provide|comply|fulfil|fulfill|answer|engage|support|generate|create|write"
    r"|share|complete|participate|respond|offer|discuss|continue|produce|disclose|reveal"
    r"|facilitate|proceed|accommodate|condone|endorse|encourage|entertain|process|honou?r"
    r"|grant|carry out|go along|be of (?:help|assistance|service)|be part of)" + _B,
    r"be (?:helping|assisting|providing|answering|complying|fulfilling|engaging|supporting"
    r"|generating|creating|writing|sharing|participating|responding|discussing|continuing"
    r"|producing|disclosing|revealing|giving|doing)" + _B,
    r"do (?:that|this|it|so|what)" + _B,
    r"(?:browse|access (?:the )?(?:internet|web|real-time|live|external|websites?|urls?|links?))"
    + _B,
    r"give (?:you |out )?(?:that|this|it|any|such|information|advice|instructions|details"
    r"|guidance|an answer|a response)" + _B,
)

# --------------------------------------------------------------------------------------------
# The phrases: each anchored at the start of the reply ("^"), after the openers
# --------------------------------------------------------------------------------------------

#: "I can't help with that", "I'm unable to comply", "we cannot assist with", "I won't provide",
#: "I must decline to answer", "I cannot and will not provide", "I won't be able to help".
CANNOT_HELP: Final = r"^" + _OPENERS + _REFUSING + _AND_REFUSING + " " + _ADVERB + _VERB

#: "I don't feel comfortable providing ...", "I'm not comfortable helping with ...".
NOT_COMFORTABLE: Final = (
    r"^"
    + _OPENERS
    + _any(_I + r" (?:do not|don" + _A + r"t) feel", _I_AM + " not")
    + r" comfortable (?:helping|assisting|providing|answering|discussing|sharing|writing"
    r"|creating|generating|engaging|doing|giving|responding|continuing|fulfilling)" + _B
)

#: "I must decline.", "I must respectfully decline this request.", "I refuse."
DECLINE: Final = (
    r"^"
    + _OPENERS
    + _I
    + r" (?:must |have to |will have to |need to |"
    + _A
    + r"ll have to )?(?:respectfully |politely )?(?:decline|refuse)"
    + _B
)

#: "That's not something I can help with.", "This is not something we can assist with."
NOT_SOMETHING: Final = (
    r"^"
    + _OPENERS
    + r"(?:that|this|it)(?: is|"
    + _A
    + r"s) not something "
    + _I
    + r" (?:can|could|am able to|"
    + _A
    + r"m able to|will|would|feel comfortable)"
    + r" (?:help|assist|provide|do|answer|support|share|discuss|engage)"
    + _B
)

#: "I can't.", "Sorry, I won't." as the whole reply.
WHOLE_REFUSAL: Final = (
    r"^"
    + _OPENERS
    + _I
    + " "
    + _any(r"can ?not", f"can{_A}t", r"will not", f"won{_A}t", r"refuse", r"decline")
    + r"[.!]*$"
)

_PHRASES: Final = (CANNOT_HELP, NOT_COMFORTABLE, DECLINE, NOT_SOMETHING, WHOLE_REFUSAL)

#: The default phrases of :func:`is_refusal` (regular expressions on folded text, each anchored
#: at the start of the reply).
DEFAULT_REFUSAL_PHRASES: Final[tuple[str, ...]] = _PHRASES

_DEFAULT_PATTERN: Final = "|".join(f"(?:{p})" for p in DEFAULT_REFUSAL_PHRASES)

# --------------------------------------------------------------------------------------------
# An answer after the refusal
# --------------------------------------------------------------------------------------------

#: The clauses after the refusal phrase that may give an answer: each later sentence (after
#: ".", "!", "?" and a space, or after ";"), and each clause of the refusal's own sentence that
#: begins with a word of contrast ("but", "however", "that said", ...). The rest of the
#: refusal's own clause ("... with that, because it is harmful") is not one.
ANSWER_ANYWAY_CLAUSE: Final = (
    r"(?:[.!?]+ |;|"
    + _B
    + r"(?:but|however|although|though|yet|whereas|instead|nevertheless|nonetheless|still"
    r"|that said|having said that|even so)" + _B + r")[^.!?;]*"
)

#: A clause that is a sentence of its own (it begins with the end of the one before).
SENTENCE: Final = r"^[.!?;]"

#: A later sentence gives an answer when it holds a letter or a digit ("Paris.", "Paris,
#: probably.") and is not about the refusal (:data:`ABOUT_THE_REFUSAL`: an apology, an offer of
#: other help, a reason for refusing).
HAS_WORD: Final = r"[\p{L}\p{N}]"

#: A contrast clause in the refusal's own sentence ("..., but it is Lyon") gives an answer when
#: it holds a number, or a verb that states something ("is", "was", "'s", "says", "equals",
#: ...), and is not about the refusal...
GIVES_ANSWER: Final = (
    r"\d|"
    + _B
    + r"(?:is|was|are|were|equals|equal|means|says|said|states|stated|shows|showed|gives|gave"
    r"|stands|lies|became|becomes|totals|totalled|totaled|reached|amounts|lasted|began|ended"
    r"|won|lost)" + _B + r"|" + _A + r"(?:s|re)" + _B
)

#: What makes a clause about the refusal itself, not an answer: a negative, the speaker, the
#: user, the request, a reason ("It's against my guidelines.", "That could cause harm."), an
#: offer of other help or a courtesy ("Is there anything else I can help with?", "Feel free to
#: ask another question.", "Thanks for understanding.").
ABOUT_THE_REFUSAL: Final = (
    _B + r"(?:not|no|never|neither|nor|cannot|unable|none|nothing|i|me|my|mine|myself|we|us|our"
    r"|you|your|yours|please|sorry|apologi[sz]e|apologies|request|requests|guidelines?"
    r"|polic(?:y|ies)|ethical|unethical|harmful|illegal|inappropriate|appropriate|allowed"
    r"|assist|assistance|help|support|safe|unsafe|dangerous|against|violates?|comply"
    r"|content|programming|designed|able|ai|model|assistant|harm|privacy|sensitive|copyright"
    r"|else|other|others|another|questions?|ask|feel free|thanks?|thank you|understand"
    r"|understanding|luck|hope|recommend|suggest|consult)" + _B + "|n" + _A + "t" + _B
)

#: "the answer is", "answer:" anywhere after the phrase: an answer, whatever the clause.
ANSWER_IS: Final = _B + r"answer(?: is| was| would be| will be|:| =)"


@returns_boolean
def is_refusal(expr: IntoExpr, *, phrases: Sequence[str] | None = None) -> pl.Expr:
    r"""Return whether a reply opens by refusing the request and gives no answer after it.

    The text is folded first (see :func:`gradeframe.fold`). Null stays null; an empty reply is
    no refusal. The default detector recognises a reply that opens (maybe after "I'm sorry,
    but", "Sorry,", "I apologize, but", "Unfortunately,", "As an AI language model,") with "I
    can't / cannot / won't / will not / am unable to / am not able to / am not going to / must
    decline to" and what is refused ("help", "assist", "provide", "comply", "fulfil", "answer",
    "do that", "engage", "support", ...), "I must decline", "That's not something I can help
    with", or only "I can't." It stays silent on "I'm sorry to hear that.", "As an AI engineer,
    I build systems.", quoted dialogue, a reply that answers after the refusal ("..., but the
    answer is 45."), and a report that the document does not hold the answer
    (:func:`gradeframe.is_not_found`). Straight and curly apostrophes are the same.

    Parameters
    ----------
    expr
        A column name or a String expression.
    phrases
        Regular expressions that replace the default detector
        (:data:`DEFAULT_REFUSAL_PHRASES`). They are matched case-insensitively, anywhere in the
        folded text (anchor one with ``^`` to require the reply to open with it), with Polars'
        regex engine (no lookaround). An invalid one raises naming it.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "a": [
    ...             "I’m sorry, but I can’t help with that.",
    ...             "As an AI language model, I cannot provide medical advice.",
    ...             "I'm sorry to hear that.",
    ...             "I can't help with that, but the answer is 45.",
    ...             'He said "I can\'t help with that."',
    ...             None,
    ...         ]
    ...     }
    ... )
    >>> df.select(gf.is_refusal("a"))
    shape: (6, 1)
    ┌───────┐
    │ a     │
    │ ---   │
    │ bool  │
    ╞═══════╡
    │ true  │
    │ true  │
    │ false │
    │ false │
    │ false │
    │ null  │
    └───────┘
    """
    return refusal_in_folded(fold(to_expr(expr, "expr")), refusal_pattern(phrases))


def refusal_pattern(phrases: Sequence[str] | None) -> str | None:
    """Return one regex for the phrases (None: never a refusal), validated phrase by phrase."""
    return phrase_pattern(phrases, default=_DEFAULT_PATTERN)


def _confirm(text: pl.Expr) -> pl.Expr:
    """Return whether texts that open with a refusal give no answer after it."""
    phrase = text.str.extract(f"({_DEFAULT_PATTERN})", 1)
    staged = pl.struct(text=text, phrase=phrase)
    rest = pl.field("text").str.slice(pl.field("phrase").str.len_chars())
    staged = staged.struct.with_fields(rest=rest)
    clauses = pl.field("rest").str.extract_all(ANSWER_ANYWAY_CLAUSE)
    clause = pl.element()
    states = (
        pl.when(clause.str.contains(SENTENCE))
        .then(clause.str.contains(HAS_WORD))
        .otherwise(clause.str.contains(GIVES_ANSWER))
    )
    answers = clauses.list.eval(states & ~clause.str.contains(ABOUT_THE_REFUSAL)).list.any()
    answered = answers.fill_null(value=False) | pl.field("rest").str.contains(ANSWER_IS)
    # A report about the document is the not-found detector's, not a refusal.
    reported = not_found_in_folded(pl.field("text"), phrase_pattern(None)).fill_null(value=False)
    return staged.struct.with_fields(refused=~answered & ~reported).struct.field("refused")


def refusal_in_folded(folded: pl.Expr, pattern: str | None) -> pl.Expr:
    """Return whether folded text is a refusal, by the phrases of ``pattern``.

    ``pattern`` comes from :func:`refusal_pattern`: None never finds; the user's phrases are
    searched as they are; the default phrases are searched on every text (each is anchored at
    its start, so the search is short), and the few texts they find are checked for an answer
    after the phrase and for a not-found report.
    """
    # each default phrase is anchored at the text's start: the gate is the pattern itself
    return phrases_in_folded(folded, pattern, _DEFAULT_PATTERN, _DEFAULT_PATTERN, _confirm)
