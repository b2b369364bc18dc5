"""The word rules of the contrast pairs: each function takes one reference sentence and its language
and returns every way it can change the sentence's meaning by its kind (a list of
:data:`~.contrast_base.Candidate`; empty when the rule does not apply), from which
:mod:`hallucheck.datagen.contrast` picks one with its seeded random generator.

* :func:`negation`: a "not" inserted after an auxiliary or removed ("is" / "is not", "isn't" / "is",
  "never", "has no"); French "ne ... pas", German "nicht" / "kein", Spanish "no";
* :func:`comparison`: a comparative or superlative for its opposite ("higher" / "lower", "more ...
  than" / "less ... than", "at least" / "at most");
* :func:`direction`: a word of direction or order for its opposite ("before" / "after", "rose" /
  "fell", "above" / "below", "up 5 %" / "down 5 %");
* :func:`quantifier`: a hedged quantifier or modal made absolute ("usually" -> "always", "some of"
  -> "all of", "may" -> "will", "can" -> "must");
* :func:`condition`: a clause that conditions the sentence dropped, the main clause kept (see
  :mod:`hallucheck.datagen.contrast_clauses`).

Guards keep each rule to readings where the change is a change of meaning: a bound is no negation
("not more than 8"), a name is no comparative ("Lower Manhattan"), "named after" has no direction.
"""

from __future__ import annotations

from .contrast_base import Candidate, Tokens, cased, change, first_upper, replace_word, tokens
from .contrast_clauses import condition
from .contrast_words import (
    ADJECTIVE_ENDINGS,
    AUX,
    COMPARISON,
    CONTRACTED,
    DE_ARTICLES,
    DE_KEIN,
    DE_NEGATABLE,
    DE_NICHT_BOUND,
    DETERMINER_QUANTIFIERS,
    DETERMINERS,
    DIRECTION,
    ES_CLITICS,
    ES_NEGATABLE,
    ES_NO_BOUND,
    FR_ELIDED,
    FR_NEGATABLE,
    FR_NOT_AFTER,
    IRREGULAR_PARTICIPLES,
    IRREGULAR_PLURALS,
    NEGATABLE_AUX,
    NOT_BEFORE,
    QUANTIFIER,
)

_NUMBER_WORDS = frozenset(
    "a an one two three four five six seven eight nine ten twelve twenty hundred thousand half once twice".split()
)
_BOUND_COMPARATIVES = frozenset("more less fewer later earlier longer sooner greater higher lower".split())


def _bounds(tok: Tokens, k: int) -> bool:
    """Word ``k`` starts a bound or an emphasis ("only", "just", "more than", "less ... than")."""
    if tok.word(k) in ("only", "just", "least", "to", "because"):
        return True
    return any(tok.word(n) in _BOUND_COMPARATIVES and tok.word(n + 1) == "than" for n in range(k, k + 3))


def _participle(word: str) -> bool:
    return word.endswith(("ed", "en", "wn", "ne", "ght")) or word in IRREGULAR_PARTICIPLES


def _plural(word: str) -> bool:
    if word in IRREGULAR_PLURALS:
        return True
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ous", "'s"))


# ---------------------------------------------------------------------------------------------- negation


def negation(sentence: str, lang: str) -> list[Candidate]:
    tok = tokens(sentence)
    if lang == "fr":
        return _negation_fr(tok)
    if lang == "de":
        return _negation_de(tok)
    if lang == "es":
        return _negation_es(tok)
    return _negation_en(tok)


def _negation_en(tok: Tokens) -> list[Candidate]:
    s, out = tok.sentence, []
    n = len(tok)
    for i in range(n):
        w, span = tok.word(i), tok.spans[i]
        if w in CONTRACTED and not _bounds(tok, i + 1):  # "isn't" -> "is", "cannot" -> "can"
            out.append((change(s, span.start, span.end, cased(span.text, CONTRACTED[w])),))
        elif w == "not" and tok.word(i - 1) in AUX and tok.plain_gap(i - 1) and not _bounds(tok, i + 1):
            out.append((change(s, tok.spans[i - 1].end, span.end, ""),))  # "is not" -> "is"
        elif w == "never" and i + 1 < n and tok.plain_gap(i) and tok.word(i + 1) not in ("before", "again", "ever"):
            if i == 0:  # "Never again ..." is skipped above; "Never has ..." reads badly without it
                continue
            out.append((change(s, span.start, tok.spans[i + 1].start, ""),))
        elif (
            w == "no"
            and tok.word(i - 1) in ("is", "are", "was", "were", "has", "have", "had")
            and i + 1 < n
            and tok.plain_gap(i)
            and tok.word(i + 1) not in ("longer", "more", "less", "fewer", "one", "doubt", "matter", "sooner")
            and tok.word(i + 1).isalpha()
        ):
            out.append((change(s, span.start, tok.spans[i + 1].start, ""),))  # "has no children" -> "has children"
        elif w in NEGATABLE_AUX and _negatable(tok, i):
            out.append((change(s, span.end, span.end, " not"),))
    return out


def _negatable(tok: Tokens, i: int) -> bool:
    """Auxiliary ``i`` can take a "not" after it: used as a verb (no determiner before it, not a
    capitalised name), followed directly by a word that is no negation, bound or adverb; "has",
    "have", "had" only before a participle ("has won", not "has a car")."""
    w, nxt = tok.word(i), tok.word(i + 1)
    if i + 1 >= len(tok) or not tok.plain_gap(i) or tok.in_name(i) or tok.word(i - 1) in DETERMINERS:
        return False
    if i == 0 or nxt in NOT_BEFORE or nxt in CONTRACTED or _bounds(tok, i + 1):
        return False
    if w in ("has", "have", "had"):
        return _participle(nxt)
    return nxt[:1].isalnum()


def _negation_fr(tok: Tokens) -> list[Candidate]:
    s, out = tok.sentence, []
    for i, w in enumerate(tok.low):
        span = tok.spans[i]
        pas = next((k for k in range(i + 1, min(i + 4, len(tok))) if tok.word(k) == "pas"), None)
        if pas is not None and (w.startswith("n'") or w == "ne"):
            drop_pas = change(s, tok.spans[pas - 1].end, tok.spans[pas].end, "")
            if w == "ne":
                drop_ne = change(s, span.start, tok.spans[i + 1].start, "")
            elif tok.word(i - 1) in FR_ELIDED and tok.plain_gap(i - 1):  # "ce n'est pas" -> "c'est"
                prev = tok.spans[i - 1]
                drop_ne = change(s, prev.start, span.start + 2, prev.text[:-1] + "'")
            else:
                drop_ne = change(s, span.start, span.start + 2, "")
            if pas == i + 1 or w == "ne" or pas == i + 2:
                out.append((drop_ne, drop_pas))
        elif w in FR_NEGATABLE and i > 0 and tok.word(i + 1) not in FR_NOT_AFTER:
            prev = tok.word(i - 1)
            if prev == "ne" or prev.startswith("n'") or not tok.plain_gap(i - 1):
                continue
            if w == "a" and prev == "y":  # "il y a" -> "il n'y a pas"
                out.append((change(s, tok.spans[i - 1].start, span.end, "n'y a pas"),))
            else:
                neg = "n'" if w[:1] in "aeéèiou" else "ne "
                out.append((change(s, span.start, span.end, f"{neg}{span.text} pas"),))
        elif w == "c'est" and tok.word(i + 1) not in FR_NOT_AFTER:
            out.append((change(s, span.start, span.end, cased(span.text, "ce n'est pas")),))
    return out


def _negation_de(tok: Tokens) -> list[Candidate]:
    s, out = tok.sentence, []
    for i, w in enumerate(tok.low):
        span = tok.spans[i]
        if w == "nicht" and i > 0 and tok.word(i + 1) not in DE_NICHT_BOUND and tok.plain_gap(i - 1):
            out.append((change(s, tok.spans[i - 1].end, span.end, ""),))
        elif w in DE_KEIN and tok.word(i + 1) not in ("mehr",):
            out.append((change(s, span.start, span.end, cased(span.text, w[1:])),))  # "keine" -> "eine"
        elif w in DE_NEGATABLE and i > 0 and i + 1 < len(tok) and tok.plain_gap(i):
            nxt = tok.spans[i + 1].text
            if nxt[:1].islower() and nxt.lower() not in DE_ARTICLES and nxt.lower() not in DE_KEIN:
                out.append((change(s, span.end, span.end, " nicht"),))
    return out


def _negation_es(tok: Tokens) -> list[Candidate]:
    s, out = tok.sentence, []
    for i, w in enumerate(tok.low):
        span = tok.spans[i]
        if w == "no" and i + 1 < len(tok) and tok.plain_gap(i) and tok.word(i + 1) not in ES_NO_BOUND:
            if tok.word(i - 1) in ("o", "sí", "si") or not tok.spans[i + 1].text[:1].islower():
                continue
            if i == 0:
                nxt = tok.spans[1]
                out.append((change(s, span.start, nxt.end, first_upper(nxt.text)),))
            else:
                out.append((change(s, span.start, tok.spans[i + 1].start, ""),))
        elif w in ES_NEGATABLE and tok.word(i - 1) not in ("no", "nunca", "ni", "jamás"):
            at = i - 1 if tok.word(i - 1) in ES_CLITICS and tok.plain_gap(i - 1) else i  # "se puede" -> "no se puede"
            if tok.word(at - 1) in ("no", "nunca", "ni", "jamás"):
                continue
            first = tok.spans[at]
            if at == 0:
                out.append((change(s, first.start, first.end, "No " + first.text.lower()),))
            else:
                out.append((change(s, first.start, first.start, "no "),))
    return out


# ---------------------------------------------------------------------------------------------- comparison


def comparison(sentence: str, lang: str) -> list[Candidate]:
    tok = tokens(sentence)
    table = COMPARISON.get(lang, COMPARISON["en"])
    out = []
    for i, w in enumerate(tok.low):
        if lang == "en":
            new = _comparison_en(tok, i)
        elif w in table and _foreign_comparison_ok(tok, i, lang):
            new = table[w]
        else:
            new = None
        if new is not None:
            out.append(replace_word(tok, i, new))
    return out


def _comparison_en(tok: Tokens, i: int) -> str | None:
    w, prev, nxt = tok.word(i), tok.word(i - 1), tok.word(i + 1)
    if tok.in_name(i):
        return None  # "Greater London", "Lower Manhattan"
    if w in ("more", "less", "fewer"):
        if prev in ("once", "any", "what's") or nxt in ("or", "and") or prev in ("or", "and"):
            return None  # "more or less", "more and more", "once more"
        than = any(tok.word(k) == "than" for k in range(i + 1, i + 4))
        graded = nxt.endswith(ADJECTIVE_ENDINGS) and len(nxt) > 4 and tok.plain_gap(i)
        if not (than or graded):
            return None
        if w != "more":
            return "more"
        return "fewer" if _plural(nxt) and not graded else "less"
    if w in ("most", "least") and prev == "the":
        return "least" if w == "most" else "most"
    if w in ("most", "least") and prev == "at":  # a bound on a figure: "at least 8", "at most half"
        if nxt[:1].isdigit() or nxt in _NUMBER_WORDS:
            return "least" if w == "most" else "most"
        return None
    if w not in COMPARISON["en"]:
        return None
    if w in ("longer", "more") and prev in ("no", "any"):
        return None  # "no longer" is a negation
    if w == "lower" and (prev in ("to", "will", "would", "can", "could", "may", "might") or nxt in ("the", "its")):
        return None  # the verb "to lower"
    if w in ("best", "worst") and nxt == "known":
        return None
    return COMPARISON["en"][w]


def _foreign_comparison_ok(tok: Tokens, i: int, lang: str) -> bool:
    w, prev, nxt = tok.word(i), tok.word(i - 1), tok.word(i + 1)
    window = [tok.word(k) for k in range(max(0, i - 3), i)]
    if lang == "fr" and w in ("plus", "moins"):
        # "ne ... plus" is a negation, "de plus" / "en plus" / "non plus" add, "plus tard" is time
        return (
            not any(x == "ne" or x.startswith("n'") for x in window)
            and prev not in ("de", "en", "non")
            and (nxt not in ("tard", "tôt"))
        )
    if lang == "de" and w in ("mehr", "weniger"):
        return not any(x == "nicht" or x in DE_KEIN for x in window) and nxt != "oder" and prev != "oder"
    if lang == "es" and w in ("más", "menos"):
        return "no" not in window and nxt != "o" and prev != "o"
    return not (lang != "de" and tok.in_name(i))


# ---------------------------------------------------------------------------------------------- direction

_AFTER_IDIOMS = frozenset("named look looks looked looking take takes took taking".split())
_FALL_IDIOMS = frozenset("ill asleep silent apart victim in into for short under within on flat".split())
_MOVE_VERBS = frozenset("went go goes going gone is are was were been moved move moves".split())


def direction(sentence: str, lang: str) -> list[Candidate]:
    tok = tokens(sentence)
    table = DIRECTION.get(lang, DIRECTION["en"])
    out = []
    for i, w in enumerate(tok.low):
        new = None
        if lang == "en" and w in ("up", "down"):
            if tok.word(i - 1) in _MOVE_VERBS and (tok.word(i + 1)[:1].isdigit() or tok.word(i + 1) in ("by", "from")):
                new = "down" if w == "up" else "up"
        elif w in table and (lang != "en" or _direction_en_ok(tok, i)) and not (lang != "de" and tok.in_name(i)):
            new = table[w]
        if new is not None:
            out.append(replace_word(tok, i, new))
    return out


def _direction_en_ok(tok: Tokens, i: int) -> bool:
    w, prev, nxt = tok.word(i), tok.word(i - 1), tok.word(i + 1)
    if tok.in_name(i):
        return False  # "North Korea", "Niagara Falls"
    if w in ("after", "before") and nxt == "a" and tok.word(i + 2) == "while":
        return False
    if w == "after":
        return prev not in _AFTER_IDIOMS and nxt != "all"
    if w == "before":
        return nxt != "long" and prev not in ("ever", "never")
    if w in ("fell", "fall", "falls", "fallen", "falling"):
        return nxt not in _FALL_IDIOMS and prev not in ("last", "this", "next")
    if w in ("rose", "rise", "rises"):
        return prev not in DETERMINERS - {"the", "its", "their", "his", "her"} and prev not in ("give", "gave", "given")
    if w in ("grew", "grow", "grows", "shrank", "shrink", "shrinks"):
        return nxt[:1].isdigit() or nxt in ("by", "to", "from")
    if w in ("later", "earlier"):
        return prev not in ("or", "sooner")
    if w in ("north", "south", "east", "west"):
        return nxt in ("of", "by") or prev in ("to", "the", "further", "farther", "heading", "moving")
    return True


# ---------------------------------------------------------------------------------------------- quantifiers


def quantifier(sentence: str, lang: str) -> list[Candidate]:
    tok = tokens(sentence)
    table = QUANTIFIER.get(lang, QUANTIFIER["en"])
    if sentence.rstrip().endswith("?"):
        return []
    out = []
    for i, w in enumerate(tok.low):
        if w in table and _quantifier_ok(tok, i, lang):
            out.append(replace_word(tok, i, table[w]))
    return out


def _quantifier_ok(tok: Tokens, i: int, lang: str) -> bool:
    w, prev, nxt = tok.word(i), tok.word(i - 1), tok.word(i + 1)
    if lang != "de" and tok.in_name(i):
        return False  # "May", "Will Smith"
    if w in DETERMINER_QUANTIFIERS:
        if lang != "en":
            return True
        if prev in ("the", "at", "a", "how", "as", "so", "too", "for", "very"):
            return False  # "the most", "as many as", "how many"
        return tok.plain_gap(i) and (nxt == "of" or _plural(nxt))
    if lang != "en":
        return True
    if w in ("may", "might", "can"):
        return prev not in DETERMINERS and i + 1 < len(tok) and tok.plain_gap(i) and nxt.isalpha() and i > 0
    if w == "likely":
        return nxt == "to" and prev in ("is", "are", "was", "were", "be", "been")
    if w in ("often", "frequently", "usually", "commonly", "generally", "typically", "normally"):
        return prev not in ("more", "most", "less", "least", "as", "how", "so", "too", "very", "not")
    return True


__all__ = ["comparison", "condition", "direction", "negation", "quantifier"]
