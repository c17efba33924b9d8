"""International words of languages without a lexicon table, and words the tables lack, spelt the English way.

Much of the vocabulary skills are described with is Latin or Greek and is written alike across
Europe, with a language's own endings and letters: Dutch `documentatie`, Czech `dokumentace`,
Norwegian `dokumentasjon`, Catalan `documentació`, Romanian `documentație` are all
`documentation`. `english_spellings` rewrites such a word's ending (-atie/-ace/-asjon/-ació →
-ation, -itate → -ity, -isering → -ization ...) and letters (k → c, z → s) into the few English
spellings it could be; the query keeps one only if the index holds it, so a rewrite that makes no
English word costs nothing but a lookup.

What it must not know: the index, the lexicon or scores. Pure functions only.
"""

from __future__ import annotations

from functools import lru_cache

# Foreign ending → English ending, for words already folded to ASCII; the longest match wins.
_ENDINGS: dict[str, str] = {
    # -ation: nl -atie, ro -ație, cs/sk -ace, pl -acja, no/da -asjon, ca -ació, sv/nl -ering
    "isatie": "ization", "izatie": "ization", "isering": "ization", "izering": "ization",
    "izace": "ization", "izare": "ization", "itzacio": "ization", "isasjon": "ization",
    "atie": "ation", "acie": "ation", "ace": "ation", "acja": "ation", "acia": "ation",
    "asjon": "ation", "acio": "ation", "ering": "ation", "are": "ation",
    # -tion after another letter: nl functie, cs funkce, pl funkcja, no funksjon, ca funció
    "ctie": "ction", "kce": "ction", "kcja": "ction", "ksjon": "ction", "ccio": "ction",
    "tie": "tion", "cja": "tion", "sjon": "tion", "cio": "tion",
    # -ity: ro -itate, nl -iteit, sv/no/da -itet, cs -ita
    "itate": "ity", "iteit": "ity", "itet": "ity",
    # -ance, -ic, -ology, -graphy, -egy, -ure
    "anta": "ance", "antie": "ance",
    "isch": "ic", "isk": "ic", "icky": "ic",
    "ologie": "ology", "ologi": "ology", "ologia": "ology",
    "grafie": "graphy", "grafi": "graphy", "grafia": "graphy",
    "egie": "egy", "egi": "egy",
    "uur": "ure",
    # tables whose languages also write international words their own way, for words a table
    # lacks: tr -asyon/-izasyon (entegrasyon, tokenizasyon), -siyon (versiyon); id -asi/-isasi
    # (replikasi, tokenisasi), -ksi (transaksi); pt -ção/-ização folded (replicacao, localizacao),
    # -idade (qualidade); pl -izacja
    "izasyon": "ization", "isasyon": "ization", "asyon": "ation", "ksiyon": "ction", "siyon": "sion",
    "isasi": "ization", "asi": "ation", "ksi": "ction",
    "izacao": "ization", "acao": "ation", "cao": "tion", "idade": "ity",
    "izacja": "ization",
    # tr and id -ik, -if for -ic, -ive (sembolik, otomatik, analitik; interaktif, kreatif, efektif)
    "ik": "ic", "if": "ive",
    # Romance words a table lacks, folded: es -ción/-ciones, -idad, -ivo, -ista, -ismo, -ico,
    # -oso, -encia, -izar, -ificar, -mente, -ado (transiciones, severidad, alternativo,
    # minimalista, automáticamente, deduplicados); it -zione/-zioni, -ità, -izzare, -enza;
    # fr -ité, -ique, -isme, -iser, -ifier
    "aciones": "ations", "iciones": "itions", "ciones": "tions", "acion": "ation", "icion": "ition", "cion": "tion",
    "siones": "sions", "idades": "ities", "idad": "ity",
    "ivos": "ive", "ivas": "ive", "ivo": "ive", "iva": "ive", "ivi": "ive",
    "istas": "ists", "ista": "ist", "isti": "ists", "ismo": "ism", "isme": "ism", "iste": "ist",
    "icos": "ic", "icas": "ic", "ico": "ic", "ica": "ic", "ici": "ic", "iche": "ic", "iques": "ic", "ique": "ic",
    "osos": "ous", "osas": "ous", "oso": "ous", "osa": "ous",
    "encia": "ence", "ancia": "ance", "enza": "ence", "anza": "ance",
    "izar": "ize", "izzare": "ize", "iser": "ize", "ificar": "ify", "ificare": "ify", "ifier": "ify",
    "icamente": "ically", "amente": "ly", "mente": "ly",
    "ados": "ated", "adas": "ated", "ado": "ated", "ada": "ated",
    "zioni": "tions", "zione": "tion", "izzazione": "ization", "ita": "ity", "ite": "ity",
    # Polish adjectives: -ywny for -ive (generatywny, interaktywna, efektywne), -yczny for -ic (automatyczny,
    # dynamiczna, statyczne; -iczny after a soft consonant)
    "ywny": "ive", "ywna": "ive", "ywne": "ive", "ywnego": "ive", "ywnych": "ive", "ywnie": "ively",
    "yczny": "ic", "yczna": "ic", "yczne": "ic", "ycznego": "ic", "ycznych": "ic", "ycznie": "ically",
    "iczny": "ic", "iczna": "ic", "iczne": "ic", "icznego": "ic", "icznych": "ic", "icznie": "ically",
}
# Letters Turkish and Indonesian write their own way in Greek and Latin words, tried one at a time
# after k → c: sy, ty and ph are si, ti and f (simbolik symbolic, sistem system, tipe type, grafik
# graphic, fisik physic), ks is x (kompleks complex), and an opening s is often a c (sertifikasi
# certification, sel cell).
_LETTERS: tuple[tuple[str, str], ...] = (
    ("sim", "sym"), ("sem", "sym"), ("sin", "syn"), ("sis", "sys"), ("tip", "typ"), ("f", "ph"), ("cs", "x"),
    # Polish writes v as w and si as sy (serwer server, wersja version, symulator simulator)
    ("w", "v"), ("sym", "sim"),
)
# Spanish and Portuguese put an e before an s and a consonant at a word's start (estructura, escalar).
_PROTHETIC_BEFORE = frozenset("cptqm")
_LONGEST_ENDING = max(len(e) for e in _ENDINGS)
# Polish and Czech decline the English words and names they borrow: na TikToku, w YouTubie, z Modalem,
# na serwerze, mikroinfluencerów (folded: ow). The word less one such ending may be the catalog's word.
_CASE_ENDINGS = frozenset("u ie em ze ow ach ami owi om".split())
_CASE_STEM_MIN = 4
_MIN_LETTERS = 5


@lru_cache(maxsize=1 << 14)
def english_spellings(word: str) -> tuple[str, ...]:
    """The English spellings an international word of another language may stand for
    (`dokumentace` → `documentation`, ...), most likely first; none for short words."""
    if len(word) < _MIN_LETTERS or not word.isascii() or not word.isalpha():
        return ()
    bases = [word]
    for size in range(min(_LONGEST_ENDING, len(word) - 3), 1, -1):
        english = _ENDINGS.get(word[-size:])
        if english is not None:
            bases.insert(0, word[:-size] + english)
            break
    for size in range(3, 0, -1):  # a Slavic case ending on a word spelt the English way (tiktoku, serwerze)
        if word[-size:] in _CASE_ENDINGS and len(word) - size >= _CASE_STEM_MIN:
            bases.append(word[:-size])
            break
    found: list[str] = []
    for base in bases:
        lettered = base.replace("k", "c")
        forms = [base, lettered, lettered.replace("z", "s")]
        forms += [lettered.replace(a, b) for a, b in _LETTERS if a in lettered]
        if lettered.startswith("s"):
            forms.append("c" + lettered[1:])
        if lettered.startswith("es") and lettered[2:3] in _PROTHETIC_BEFORE:  # es/pt especificación, estructura
            forms.append(lettered[1:])
        for form in forms:
            if form != word and form not in found:
                found.append(form)
    return tuple(found)
