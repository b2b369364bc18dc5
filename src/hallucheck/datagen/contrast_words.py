"""The word tables of the contrast rules (:mod:`hallucheck.datagen.contrast_rules`): auxiliaries that
take a negation, opposites of comparison and of direction, quantifiers and their stronger forms,
condition openers, and the meaning-keeping synonyms of the supported twins. English first; French,
German and Spanish where a table is enough (no reordering of the sentence)."""

from __future__ import annotations


def _both_ways(pairs: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs.split():
        a, b = pair.split("/")
        out.setdefault(a, b)
        out.setdefault(b, a)
    return out


def _one_way(pairs: str) -> dict[str, str]:
    return dict(p.split("/") for p in pairs.split())


# ---------------------------------------------------------------------------------------------- negation

# auxiliaries a "not" follows ("is" -> "is not"); has/have/had only before a participle
NEGATABLE_AUX = frozenset("is are was were has have had can could will would should must may might".split())
# auxiliaries whose "not" may be removed ("does not" -> "does": emphatic, still grammatical)
AUX = NEGATABLE_AUX | frozenset("do does did shall need".split())
CONTRACTED = _one_way(
    """isn't/is aren't/are wasn't/was weren't/were hasn't/has haven't/have hadn't/had doesn't/does don't/do
    didn't/did can't/can cannot/can couldn't/could won't/will wouldn't/would shouldn't/should mustn't/must"""
)
NEGATIONS_EN = frozenset("not never no".split()) | frozenset(CONTRACTED)
IRREGULAR_PARTICIPLES = frozenset(
    """been made said won led met set put run become come left lost held built paid sold told found got bought
    brought caught taught thought sent spent kept felt heard read hit cut let shut quit struck stood understood
    begun done gone seen known shown grown drawn thrown flown born worn torn sworn""".split()
)
# words after which a "not" would be awkward or bound a figure ("not only", "no more than")
NOT_BEFORE = frozenset(
    """not never no also only just still even already always often usually yet unfortunately fortunately apparently
    reportedly allegedly obviously clearly certainly probably possibly actually really indeed perhaps""".split()
)
DETERMINERS = frozenset("the a an his her its their our my your this that free".split())

FR_NEGATABLE = frozenset("est sont était étaient a ont avait avaient peut peuvent doit doivent sera seront fut".split())
FR_NOT_AFTER = frozenset("pas plus jamais rien guère point".split())
FR_ELIDED = frozenset("ce je le la de que me te se".split())  # "ce est" -> "c'est"
DE_NEGATABLE = frozenset("ist sind war waren wird werden".split())
DE_ARTICLES = frozenset("ein eine einen einem einer eines der die das den dem des kein keine nicht".split())
DE_KEIN = frozenset("kein keine keinen keinem keiner keines".split())
DE_NICHT_BOUND = frozenset("nur mehr weniger einmal".split())
ES_NEGATABLE = frozenset(
    "es son era eran está están estaba fue fueron puede pueden debe deben tiene tienen hay ha han había".split()
)
ES_CLITICS = frozenset("se lo la le les los las me te nos".split())
ES_NO_BOUND = frozenset("solo sólo solamente más menos obstante sino".split())

# ---------------------------------------------------------------------------------------------- comparison

COMPARISON_EN = _both_ways(
    """higher/lower highest/lowest larger/smaller largest/smallest better/worse best/worst older/younger
    oldest/youngest longer/shorter longest/shortest faster/slower fastest/slowest heavier/lighter
    stronger/weaker strongest/weakest richer/poorer wider/narrower warmer/cooler hotter/colder
    maximum/minimum"""
) | _one_way("bigger/smaller biggest/smallest greater/smaller greatest/smallest taller/shorter")
COMPARISON_FR = _both_ways(
    """plus/moins supérieur/inférieur supérieure/inférieure supérieurs/inférieurs supérieures/inférieures"""
) | _one_way("meilleur/pire meilleure/pire meilleurs/pires meilleures/pires")
COMPARISON_DE = _both_ways(
    """mehr/weniger höher/niedriger höhere/niedrigere höheren/niedrigeren höherer/niedrigerer größer/kleiner
    größere/kleinere größeren/kleineren länger/kürzer längere/kürzere besser/schlechter bessere/schlechtere
    älter/jünger ältere/jüngere mindestens/höchstens"""
)
COMPARISON_ES = _both_ways("más/menos mayor/menor mayores/menores mejor/peor mejores/peores superior/inferior")
COMPARISON = {"en": COMPARISON_EN, "fr": COMPARISON_FR, "de": COMPARISON_DE, "es": COMPARISON_ES}
# suffixes of an adjective or adverb "more"/"less" may grade ("more expensive")
ADJECTIVE_ENDINGS = ("ive", "ful", "ous", "able", "ible", "al", "ic", "ent", "ant", "ly", "ary", "less", "ing", "ed")
IRREGULAR_PLURALS = frozenset("people children men women data police staff".split())

# ---------------------------------------------------------------------------------------------- direction

DIRECTION_EN = _both_ways(
    """before/after increase/decrease increases/decreases increased/decreased increasing/decreasing
    rise/fall rises/falls rose/fell risen/fallen rising/falling above/below earlier/later earliest/latest
    upward/downward upwards/downwards north/south east/west northward/southward grew/shrank grow/shrink grows/shrinks growth/decline"""
)
DIRECTION_FR = _both_ways(
    """avant/après hausse/baisse augmente/diminue augmentent/diminuent augmenté/diminué
    augmentation/diminution"""
)
DIRECTION_DE = _both_ways(
    """vorher/nachher davor/danach steigt/sinkt stieg/sank gestiegen/gesunken anstieg/rückgang
    oberhalb/unterhalb früher/später vorne/hinten"""
)
DIRECTION_ES = _both_ways(
    "antes/después aumenta/disminuye aumentan/disminuyen aumentó/disminuyó sube/baja subió/bajó encima/debajo"
)
DIRECTION = {"en": DIRECTION_EN, "fr": DIRECTION_FR, "de": DIRECTION_DE, "es": DIRECTION_ES}

# ---------------------------------------------------------------------------------------------- quantifiers

QUANTIFIER_EN = _one_way(
    """usually/always often/always sometimes/always frequently/always generally/always typically/always
    normally/always commonly/always rarely/never seldom/never may/will might/will can/must some/all
    most/all many/all several/all possibly/certainly probably/certainly perhaps/certainly partly/entirely
    partially/fully mostly/entirely likely/certain"""
)
QUANTIFIER_FR = _one_way(
    """souvent/toujours parfois/toujours généralement/toujours certains/tous certaines/toutes peut/doit
    peuvent/doivent probablement/certainement"""
)
QUANTIFIER_DE = _one_way(
    "oft/immer manchmal/immer meistens/immer einige/alle kann/muss können/müssen wahrscheinlich/sicher"
)
QUANTIFIER_ES = _one_way(
    """generalmente/siempre normalmente/siempre algunos/todos algunas/todas puede/debe pueden/deben
    probablemente/seguramente"""
)
QUANTIFIER = {"en": QUANTIFIER_EN, "fr": QUANTIFIER_FR, "de": QUANTIFIER_DE, "es": QUANTIFIER_ES}
# quantifiers read only before a plural or "of" ("some of the", "many people"; not "some time")
DETERMINER_QUANTIFIERS = frozenset("some most many several certains certaines einige algunos algunas".split())

# ---------------------------------------------------------------------------------------------- conditions

# a clause these open sets a condition on the rest of the sentence; "even if", "as if" do not
CONDITION_OPENERS_EN = (
    "only if",
    "only when",
    "if",
    "unless",
    "provided that",
    "providing that",
    "as long as",
    "so long as",
    "except when",
    "except if",
    "except for",
    "except in",
    "except on",
    "except",
    "in case of",
    "in the event of",
    "whenever",
    "when",
)
# closing phrases that condition what precedes them ("Available with a prescription.")
CONDITION_TAILS_EN = (
    "with a prescription",
    "with a doctor's prescription",
    "on prescription",
    "under medical supervision",
    "with parental consent",
    "with permission",
    "if necessary",
    "if needed",
    "when necessary",
    "when needed",
)
CONDITION_OPENERS = {"en": CONDITION_OPENERS_EN, "fr": ("si", "sauf si", "à condition que"), "es": ("si", "salvo si")}
# verbs after which "if" asks ("asked if she was hurt"): no condition
ASKING = frozenset(
    """ask asks asked asking wonder wonders wondered know knew known see saw check checks checked decide decided
    determine determined unclear unsure clear sure doubt tell told whether""".split()
)
PAST_MARKERS = frozenset("was were had did said went came became took got made found left told".split())

# ---------------------------------------------------------------------------------------------- twins

# a word for a word that keeps the meaning (no key word of any rule above is replaced by these)
SYNONYMS_EN = _one_way(
    """nearly/almost almost/nearly roughly/approximately approximately/roughly began/started begun/started
    bought/purchased purchased/bought quickly/rapidly rapidly/quickly entire/whole annual/yearly yearly/annual
    movie/film movies/films automobile/car automobiles/cars children/kids obtain/get sufficient/enough
    numerous/many located/situated demonstrated/showed required/needed requires/needs
    frequently/often stated/said said/stated moreover/furthermore furthermore/moreover currently/presently
    additionally/also assist/help"""
)
# (words) -> words, for phrases
PHRASE_SYNONYMS_EN = {
    ("prior", "to"): "before",
    ("in", "order", "to"): "to",
    ("due", "to"): "because of",
    ("in", "addition", "to"): "besides",
    ("attempted", "to"): "tried to",
    ("tried", "to"): "attempted to",
}
MONTHS = "january february march april may june july august september october november december".split()
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
TIME_NOUNS = frozenset("week month year morning afternoon evening night day weekend decade century season".split())
# a clause with one of these is no simple clause to move an adverbial across
CLAUSE_WORDS = frozenset(
    """that which who whom whose said says told reported announced and but or when if because while although
    though after before since until where whether than as""".split()
)

__all__ = [name for name in dir() if name.isupper()]
