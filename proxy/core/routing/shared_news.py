"""Messages that ask for nothing: news or a feeling shared, with no question, no request and no problem.

"we just migrated from Jenkins to GitHub Actions and honestly it feels like I can breathe again",
"my first open source PR got merged into pandas today!!", "Właśnie skończyliśmy migrację do chmury
i cały zespół idzie na piwo." name a tool or a task a skill serves, but ask for nothing: the model
answers with a word of congratulation, and no skill's instructions help. Such a message routes no
skill (the router still ranks them, for `list_skills`), unless it writes a skill's full name.

A message shares news when all of these hold, in the fourteen languages the router reads:

- **no ask**: no clause, nor part of one between commas, is a question or opens with a request
  (`request_focus.asks`: a question mark, "how", "can you", "please", "bitte", "怎么", "주세요" …;
  "what a relief" is an exclamation) or with a request verb ("write", "set up", "schreib",
  "напиши", "buatkan" …), and no word says what the user needs or wants ("need", "want", "next",
  "attached", "brauche", "necesito", "нужно", "perlu", "想要" …);
- **no problem**: nothing is reported as broken, failing or slow ("throws a KeyError", "keeps
  crashing", "kaputt", "报错"), unless negated ("nothing broke", "keine kaputten Builds mehr",
  "tanpa error"): a problem described without a question asks for help with it;
- **news or a feeling**: a word of completion ("finally", "just shipped", "is done", "endlich",
  "acabamos de", "наконец", "akhirnya", "终于", "やっと", "드디어") or of a feeling or
  celebration ("proud", "relieved", "thanks", "erleichtert", "mutluyum", "vui quá", "🎉"); a word
  of time ("today", "heute", "今天") only with an exclamation, since without one it often dates a
  problem ("since yesterday our nightly job times out").

Deliberately narrow: each condition leaves a message alone when in doubt, so a bare description of
a task ("need a Helm chart for our Node API") or of a problem ("the checkout page throws a 500 when
the cart is empty") still routes. Pure and deterministic, on the normalised (case-folded) message.
"""

from __future__ import annotations

import re
import unicodedata

from proxy.core.routing.request_focus import asks
from proxy.core.routing.tokens import FOREIGN_STOPWORDS, STOPWORDS, holds_cjk, plain_words
from proxy.core.routing.triggered_patterns import first_match, triggered

LONGEST_NEWS = 400  # characters; a longer message carries a task of its own (a pasted log, a spec)

# Words that say what the user needs or wants, anywhere in the message.
_REQUEST_WORDS = frozenset("""
need needs want wants please pls must should let gotta next attached attach
brauche brauchen brauchst will möchte möchten moechte muss müssen muessen soll sollte hilf helft
quiero queremos quisiera necesito necesitamos necesita debo debemos debería deberia ayuda ayúdame
veux voudrais voulons besoin dois devons faut aide aidez
quero queremos queria preciso precisamos precisa devo devemos deveria ajuda ajude
voglio vorrei vogliamo serve servono devo dobbiamo bisogno aiuto aiutami
хочу хотим хотелось нужно нужен нужна нужны надо должен должны помоги помогите
chcę chce chcemy chciałbym chciałabym potrzebuję potrzebuje potrzebujemy trzeba muszę musimy powinienem pomóż
istiyorum istiyoruz lazım lazim gerek gerekiyor gerekli lütfen lutfen yardım yardim
ingin mau perlu butuh harus tolong bantu mohon
muốn cần giúp hãy nhờ
""".split())
# Of those, the ones that say the user needs or wants something (not "should": "how should I …" asks).
_WANTS = frozenset("""
need needs want wants brauche brauchen möchte möchten moechte will quiero queremos quisiera necesito necesitamos
necesita veux voudrais voulons besoin quero queria preciso precisamos precisa voglio vorrei vogliamo serve servono
bisogno хочу хотим нужно нужен нужна нужны надо chcę chce chcemy chciałbym chciałabym potrzebuję potrzebuje
potrzebujemy trzeba istiyorum istiyoruz lazım lazim gerek gerekiyor ingin mau perlu butuh muốn cần
""".split())
# Request verbs that open a clause ("write the migration …", "set up caching …"), after fillers.
_ENGLISH_REQUEST_VERBS = frozenset("""
write make create build add fix set turn convert generate find pull give show explain translate plan design
draft review analyze analyse compare list summarize summarise document scaffold train handle wrap move split
dispatch submit save restructure use run check update migrate refactor debug optimize optimise deploy rewrite
edit improve implement configure install remove delete rename port test lay put get send draw plot compute
calculate estimate predict clean extract parse format sort merge rebase search look go tell do prepare
outline brainstorm suggest recommend propose audit assess evaluate rank map model describe sketch mock name
tweak shorten expand polish proofread schedule automate integrate connect hook publish post upload download
fetch load import export store track measure monitor profile benchmark validate verify ensure work walk
research pick choose decide teach walk start stop keep replace split upgrade downgrade rollback revert
""".split())
_OTHER_REQUEST_VERBS = frozenset("""
schreib schreibe erstell erstelle mach mache bau baue füg füge zeig zeige erklär erkläre übersetz übersetze
gib finde prüf prüfe analysier analysiere konvertier konvertiere richte plane entwirf optimier optimiere
escribe escríbeme escribeme crea créame haz hazme genera arma diseña explica traduce revisa analiza
convierte dame muestra prepara redacta arregla configura optimiza
écris ecris crée cree fais génère genere explique traduis analyse convertis donne montre prépare prepare
rédige redige corrige propose configure optimise
escreva escreve crie cria faça faca faz gere explique traduza analise converta dê mostre prepare monte
corrija configure otimize
scrivi crea fai genera spiega traduci analizza converti dammi mostra prepara correggi configura ottimizza
напиши сделай создай объясни переведи проанализируй покажи дай составь настрой исправь проведи построй
сгенерируй оптимизируй подготовь
napisz zrób zrob stwórz stworz utwórz utworz wyjaśnij przetłumacz przeanalizuj pokaż daj przygotuj popraw
skonfiguruj zoptymalizuj
yaz oluştur olustur yap hazırla hazirla açıkla acikla çevir cevir göster ver düzelt duzelt kur
buat buatkan tulis tuliskan ceritakan carikan jelaskan terjemahkan analisis tampilkan berikan siapkan perbaiki
viết tạo làm giải dịch phân soạn sửa
""".split())
_REQUEST_VERBS = _ENGLISH_REQUEST_VERBS | _OTHER_REQUEST_VERBS
# English verbs no other language lists ("analyse", "prepare", "configure" are French verbs too)
_ENGLISH_ONLY_VERBS = _ENGLISH_REQUEST_VERBS - _OTHER_REQUEST_VERBS
# The same said in more than one word ("thanks for the help" asks for nothing, "help me with" does).
_REQUEST_PHRASES = re.compile(r"\b(?:would like|'d like|would love|'d love|looking for|trying to|have to|has to|"
                              r"help (?:me|us)|hilf mir|aide-moi|me ajuda|ajúdame)\b")
_FILLERS = frozenset("now also then so and ok okay just finally quickly quick first next lastly oh hey hi hello but "
                     "actually maybe pls please anyway anyways anyhow btw unrelated meanwhile".split())
# What may stand before a request verb in an ask: "can you write …", "help me fix …", "bitte schreib …".
_BEFORE_A_REQUEST = frozenset("can could would will you u me us help i need want to let's lets let please pls kindly "
                              "bitte kannst du könntest puedes podrías por favor peux-tu pouvez-vous tu peux vous "
                              "pode você voce puoi potresti можешь пожалуйста możesz proszę lütfen tolong".split())
# Wanting to know is a question, not work ("I just want to know how not to take it personally").
_WANTS_TO_KNOW = re.compile(r"\b(?:want|wants|need|needs) to (?:know|understand|hear)\b")
# What "do" asks to be done, when it asks for work: "do a review", "do the migration", "do it".
_DONE_THINGS = frozenset("a an the this that these those it some my our your me us both all another one".split())
# Words before "I" in a request ("can I get …", "could I see …"); elsewhere "I write …" is a statement.
_MODALS = frozenset("can could may might should would shall will".split())
# The request markers of CJK text that `asks` (request_focus.py) does not already read: what the user
# wants done, with 想 (want to) before the verb of the work ("想把不符合规则的筛掉", "想用 Python 做") …
_CJK_WORK_WANTS = (r"想要|希望|麻烦|帮|幫|给我|給我|想(?:把|用|让|讓|做|弄|搞|改|加|换|換|写|寫|查|找|筛|篩|统计|統計)|"
                   r"たい(?<!知りたい)(?<!聞きたい)|お願い|(?<!教え)[てで](?:ください|下さい|ほしい|欲しい)|"
                   r"싶(?<!알고 싶)|부탁|(?<!알려)(?<!알려 )(?:줘|주세요|줄래|줄 수 있|주실|주시|주면)")
_CJK_WORK_REQUESTS = re.compile(_CJK_WORK_WANTS)
# … and what it needs ("是否需要", "必要だと思う", "필요하다고 생각" may ask an opinion) or wants to know or ask.
_CJK_REQUESTS = re.compile(rf"{_CJK_WORK_WANTS}|需要|要求|必要|필요|想(?:知道|问|問)|问一下|問一下|请问|請問")
# Words that report a problem; negated ones ("nothing broke") do not count.
_PROBLEM_WORDS = frozenset("""
error errors fail fails failing failed failure failures broken broke breaks breaking crash crashes crashing crashed
slow slower bug bugs issue issues problem problems exception exceptions warning warnings timeout timeouts stuck
wrong cannot cant doesn don didn isn wasn aren couldn keeps keep leak leaks leaking hang hangs hanging mess messy
confusing struggling nobody why 404 500 502 503 down outage flaky missing lost losing dropped drops spike spikes
fehler kaputt kaputte kaputten langsam langsamer absturz abgestürzt ausgefallen ausfall fehlgeschlagen stürzt hängt
problem probleme funktioniert geht
errores falla fallo fallos roto lento caído caido cayó cayo problema problemas funciona
erreur erreurs plante planté lent cassé casse panne problème probleme marche fonctionne
erro erros falha falhas lento quebrado caiu travou travando problema problemas funciona
errore errori lento rotto bloccato crasha problema problemi funziona
ошибка ошибки ошибку падает упал упало медленно тормозит сломал сломалось проблема проблемы работает зависает
błąd błędy bledy wolno działa dziala awaria padł padl problem problemy psuje
hata hatası hatasi yavaş yavas çöküyor çöktü coktu sorun sorunu çalışmıyor calismiyor
gagal lambat rusak mati masalah
lỗi chậm hỏng sập
""".split())
_NEGATIONS = frozenset("no nothing zero without none never keine kein keinen ohne sin ningún ningun ninguna sans aucun "
                       "aucune sem nenhum nenhuma senza nessun nessuna без ни bez żadnych zadnych hiç hic tanpa không "
                       "khong".split())
_CJK_PROBLEMS = re.compile(r"(?<![没沒无無])(?:报错|報錯|错误|錯誤|失败|失敗|崩溃|崩潰|问题|問題|"
                           r"挂了|掛了|卡住|宕机|宕機)|(?<!慢)慢(?!慢)|"
                           r"エラー|動かない|遅い|落ちる|에러|오류|실패|느려|안 ?돼")
# Words of news (completion, time) and of feelings and celebration.
_NEWS_WORDS = frozenset("""
finally proud happy glad relieved excited thrilled grateful thankful thanks love loving
relief yay woohoo hooray congrats champagne celebrate celebrating unreal feels lol haha hahaha jaja jajaja jajajaja
kkkk kkkkk rsrs wkwk wkwkwk хаха ахах
endlich geschafft erleichtert stolz glücklich gluecklich froh danke juhu
finalmente feliz felices felicidad alegría alegria orgulloso orgullosa aliviado aliviada contento contenta gracias
enfin content contente fier fière soulagé soulagée heureux heureuse ravi ravie merci
orgulhoso orgulhosa obrigado obrigada
appena felice gioia contentissimo contentissima orgoglioso orgogliosa sollevato contenta grazie evviva
наконец рад рада счастлив счастлива горжусь спасибо ура выспался
wreszcie właśnie wlasnie szczęśliwy szczesliwy dumny dumna ulga dzięki dzieki hurra
sonunda nihayet mutluyum mutlu gururluyum rahatladım teşekkürler tesekkurler
akhirnya senang seneng bangga lega hore
hate ugh sigh exhausted odio odeio déteste deteste hasse ненавижу nienawidzę nienawidze bıktım biktim capek ghét
ahah ahahah ahahahah mdr xd triste tristes traurig грустно smutno sedih buồn nản
""".split())
_NEWS_PHRASES = re.compile(
    r"\b(?:this morning|at last|just (?:got|had|made|won|hit|became|came|went|did|found|left|quit|sold|bought|"
    r"built|ran|saw|took|wrote|sent|gave|heard|began|\w+ed)|i can breathe|first time|(?:is|it's|its|are|all) done|"
    r"pour one out|life is good|good morning|por fin|paid off|(?:we|i) (?:hit|reached|crossed|passed) \d|"
    r"acabamos de|acabo de|on vient de|je viens de|nous venons de|acabei de|только что|hari ini|baru saja|"
    r"terima kasih|cuối cùng|vừa|vui quá|vui ghê|vui thật|mừng quá|tự hào|nhẹ nhõm|cảm ơn|w końcu|w koncu|"
    # and of being fed up: "j'en peux plus", "no puedo más", "ich kann nicht mehr", "mam dość"
    r"fed up|sick of|(?:j'en|je n'en) peux plus|no puedo más|ich kann nicht mehr|não aguento mais|non ne posso più|"
    r"больше не могу|mam (?:już )?dość|hết chịu nổi|chán quá|feeling down|(?:sono|mi sento) (?:un po' )?giù)(?![^\W_])|"
    r"🎉|🥳|🙌|🍾|😂|🤣|🙄|😩|😤|🥹")
# (normalised as messages are: NFKC makes the jamo ㅋ ㅠ ㅜ of "ㅋㅋ", "ㅠㅠ" the conjoining ones)
_CJK_NEWS = re.compile(unicodedata.normalize("NFKC", (
    r"ㅋㅋ|终于|終於|今天|昨天|刚刚|剛剛|刚把|剛把|开心|開心|高兴|高興|骄傲|驕傲|松了一口气|鬆了一口氣|太好了|哈哈|"
    r"やっと|ついに|嬉しい|うれしい|ほっと|最高|드디어|뿌듯|기뻐|기쁘|행복|다행|"
    r"受不了|烦死|煩死|うんざり|もう無理|답답|짜증|죽겠|ㅠㅠ|ㅜㅜ")))
# Words of time: news only with an exclamation ("merged into pandas today!!"); without one they
# often date a problem ("since yesterday our nightly job times out").
_TIME_WORDS = frozenset("""
today tonight yesterday heute gestern hoy ayer aujourd hier hoje ontem oggi ieri сегодня вчера dzisiaj dziś dzis wczoraj
bugün bugun dün kemarin
""".split())
_TIME_PHRASES = re.compile(r"\b(?:hari ini|hôm nay|hôm qua)\b|今天|昨天|今日|昨日|오늘|어제")
_WORD = re.compile(r"[^\W_]+")
# "what a relief", "qué alivio", "quel soulagement", "che sollievo": exclamations, not questions
_EXCLAMATION = re.compile(r"(?:what an?|qu[ée]|que|quel|quelle|che|was für (?:ein|eine)) [^\W_]+(?: [^\W_]+)?[.!…]*$")
# Saying outright that one only vents: a problem told with it asks nothing ("… nobody knows why. just venting").
_VENTING = triggered((
    (("venting", "ranting", "vent", "rant", "asking"),
     r"\b(?:just venting|just ranting|needed to vent|had to vent|sorry for the rant|rant over|end rant|"
     r"not asking for (?:anything|advice|help|a fix))\b"),
    (("поныть", "выговориться", "desahogo", "desahogarme", "soltarlo", "desabafo", "desabafando", "desabafar",
      "râle", "rale", "sac", "gueule", "dampf", "raus", "sfogo", "sfogarmi", "żale", "wyżalić", "curhat", "dert",
      "içimi", "than"),
     r"\b(?:просто (?:хочу )?поныть|хочу поныть|выговориться|solo (?:me )?desahogo|solo quería desahogarme|"
     r"necesitaba desahogarme|necesitaba soltarlo|ten[ií]a que soltarlo|desabafo|desabafando|desabafar|je (?:r[âa]le|"
     r"vide mon sac)|coup de gueule|"
     r"dampf ablassen|musste raus|mi sfogo|sfogarmi|volevo sfogarmi|wylać żale|musiałem się wyżalić|cuma curhat|"
     r"curhat aja|sadece dert yanıyorum|içimi dökmek|chỉ muốn than|than thở chút)\b"),
    # "just wanted to tell someone", in each language: what comes before it was told, not asked
    (("wanted", "needed", "had", "quería", "queria", "voulais", "fallait", "wollte", "musste", "volevo", "dovevo",
      "хотел", "хотела", "хотелось", "chciałem", "chciałam", "istedim", "cerita", "bilang", "kể", "chia"),
     r"\b(?:just wanted to (?:share|say|tell)|(?:needed|had) to (?:say it|tell someone|tell somebody)|"
     r"s[oó]lo quer[ií]a (?:contarlo|compartirlo|decirlo)|s[óo] queria (?:contar|compartilhar|dizer)|"
     r"je voulais (?:juste )?(?:le dire|partager|en parler)|fallait que (?:je )?le dise|"
     r"wollte es (?:nur|einfach)(?: mal)? (?:loswerden|erzählen|sagen)|musste es (?:einfach )?loswerden|"
     r"volevo (?:solo )?(?:dirlo|condividerlo|raccontarlo)(?: a qualcuno)?|dovevo dirlo a qualcuno|"
     r"просто хотел(?:а|ось)? (?:рассказать|поделиться|сказать)|chciał(?:em|am) (?:się )?(?:tylko )?"
     r"(?:podzielić|powiedzieć)|(?:sadece|birine) (?:anlatmak|paylaşmak) istedim|(?:cuma|cuman) (?:mau|pengen) "
     r"(?:cerita|bilang)|chỉ muốn (?:kể|chia sẻ))\b"),
    (("说说", "說說", "分享一下", "言いたかった", "聞いてほしかった", "말하고", "털어놓고"),
     r"只是想说说|就是想找人说说|只是想說說|只是想分享一下|言いたかっただけ|誰かに言いたかった|聞いてほしかった|"
     r"그냥 말하고 싶었|그냥 털어놓고 싶었"),
    # "don't mind me", said outright: what comes before it asks nothing
    (("mind", "ignore", "whining", "complaining", "ною", "внимания", "caso", "quejo", "attention", "plains", "liga",
      "reclamando", "lamento", "uwagi", "narzekam", "takma", "abaikan", "ngeluh", "kệ", "ignorier", "jammere"),
     r"\b(?:don'?t mind me|ignore me|just (?:whining|complaining)|(?:просто )?ною|не обращай(?:те)? внимания|"
     r"no me hagas caso|solo me quejo|(?:ne )?fais pas attention|je me plains|n[ãa]o liga|s[óo] reclamando|"
     r"non farci caso|mi lamento e basta|nie zwracaj uwagi|tylko narzekam|takma kafana|abaikan aja|cuma ngeluh|"
     r"kệ mình|ignorier mich|ich jammere nur)\b"),
    (("気にしないで", "신경", "别理我", "別理我", "不用理我"), r"気にしないで|신경 ?쓰지 ?마|别理我|別理我|不用理我"),
    (("吐槽", "牢骚", "牢騷", "愚痴", "하소연", "푸념"),
     r"只是吐槽|吐槽一下|发个牢骚|發個牢騷|愚痴です|愚痴らせて|하소연|푸념"),
))
# Clauses and the parts of them between commas: a question or a request verb may open any of them.
_SEGMENTS = re.compile(r"[,;:.!?\n—–()，。！？；：、]+|\s-\s")
# Problems said in more than one word.
_PROBLEM_PHRASES = re.compile(r"\b(?:can[’']t|times? out|timed out|timing out|instead of|no longer|stopped working)\b")


def shares_news(text: str) -> str:
    """The word of news or feeling of a (normalised) message that asks for nothing, reports no
    problem and shares news or a feeling; "" for any other message."""
    if len(text) > LONGEST_NEWS or "?" in text or "？" in text:
        return ""
    venting = first_match(_VENTING, text)  # said outright, it holds even with a problem told and a want ("хочу поныть")
    if venting is not None and not any(map(_opens_a_request, _SEGMENTS.split(text))):
        return venting.group()
    words = plain_words(text)
    if not _REQUEST_WORDS.isdisjoint(words) or _REQUEST_PHRASES.search(text):
        return ""
    cjk = holds_cjk(text)
    if cjk and _CJK_REQUESTS.search(text):
        return ""
    news = _news_word(text, words, cjk)
    if not news:  # most messages stop here
        return ""
    if _reports_a_problem(text, words) or (cjk and _CJK_PROBLEMS.search(text)):
        return ""
    return "" if any(map(_asks_or_requests, _SEGMENTS.split(text))) else news


def _news_word(text: str, words: frozenset[str], cjk: bool) -> str:
    """The first word of news or feeling in the text, a word of time only with an exclamation."""
    found = _NEWS_WORDS.intersection(words)
    if found:
        return min(found, key=text.find)
    match = _NEWS_PHRASES.search(text) or (_CJK_NEWS.search(text) if cjk else None)
    if match is not None:
        return match.group()
    if "!" in text or "！" in text:
        found = _TIME_WORDS.intersection(words)
        if found:
            return min(found, key=text.find)
        match = _TIME_PHRASES.search(text)
        if match is not None:
            return match.group()
    return ""


def _reports_a_problem(text: str, words: frozenset[str]) -> bool:
    """A problem word stands in the text with no negation in the two words before it ("nothing broke"
    reports none), or "can't" does."""
    if _PROBLEM_WORDS.isdisjoint(words):
        return _PROBLEM_PHRASES.search(text) is not None
    found = _WORD.findall(text)
    return _PROBLEM_PHRASES.search(text) is not None or any(
        word in _PROBLEM_WORDS and _NEGATIONS.isdisjoint(found[max(0, k - 2) : k]) for k, word in enumerate(found))


def opens_with_a_request_verb(ask: str) -> bool:
    """The (normalised) ask asks for work: its first word after fillers and request openers ("can you",
    "help me", "please") is a request verb ("write", "fix", "set", "schreib", "напиши")."""
    words = _WORD.findall(ask, 0, 120)
    for k, word in enumerate(words):
        if word == "i" and (k == 0 or words[k - 1] not in _MODALS) and (
                k + 1 >= len(words) or words[k + 1] not in _BEFORE_A_REQUEST):
            return False  # "I write Solidity for a living" says what the user does; "can I get", "I need to" ask
        if word not in _FILLERS and word not in _BEFORE_A_REQUEST:
            return _request_verb_at(words, k)
    return False


def _request_verb_at(words: list[str], k: int) -> bool:
    """Word `k` is a request verb. "do" is one only before what is to be done: "do a security review"
    asks for work; "do you ever get tired …?" asks a question, and the Polish "do startupu" means "to
    a startup". An English verb followed by another language's function words is that language's
    loanword, a noun ("deploy bloccato da Jenkins e io che …", "review do PR ficou parada")."""
    word = words[k]
    if word == "do":
        return k + 1 < len(words) and words[k + 1] in _DONE_THINGS
    if word not in _REQUEST_VERBS:
        return False
    if word in _ENGLISH_ONLY_VERBS:
        after = words[k + 1 :]
        foreign = sum(w in FOREIGN_STOPWORDS and w not in STOPWORDS for w in after)
        return foreign < 2 or any(w in STOPWORDS for w in after)
    return True


def requests_work(ask: str) -> bool:
    """The (normalised) ask asks for work in so many words: it says what the user needs or wants, or a
    clause of it, or a part of one between commas, opens with a request verb. A problem it reports
    does not count (see `asks_for_work`)."""
    words = plain_words(_WANTS_TO_KNOW.sub(" ", ask)) if "to" in ask else plain_words(ask)
    return (not _WANTS.isdisjoint(words) or _REQUEST_PHRASES.search(ask) is not None
            or any(map(opens_with_a_request_verb, _SEGMENTS.split(ask)))
            or (holds_cjk(ask) and _CJK_WORK_REQUESTS.search(ask) is not None))


# Negations that take a want back ("not looking for advice, just needed to say it", "non mi serve niente").
_TAKEN_BACK = frozenset("not dont don no non nothing nicht nichts kein keine nada nunca niente rien pas nic nie "
                        "ничего не нет".split())


def requests_work_outright(sentence: str) -> bool:
    """The (normalised) sentence requests work (`requests_work`) and takes nothing back with a negation."""
    return requests_work(sentence) and _TAKEN_BACK.isdisjoint(plain_words(sentence))


def asks_for_work(ask: str) -> bool:
    """The (normalised) ask asks for work: a clause of it, or a part of one between commas, opens with a
    request verb ("… so I'm in a rush: add a Stripe checkout"), or it reports a problem ("it's my birthday
    but our workers keep dying")."""
    if requests_work(ask) or _reports_a_problem(ask, plain_words(ask)):  # "we want a landing page …"
        return True
    return holds_cjk(ask) and _CJK_PROBLEMS.search(ask) is not None


def _opens_a_request(segment: str) -> bool:
    """The segment's first word after fillers is a request verb."""
    words = _WORD.findall(segment, 0, 80)
    return next((_request_verb_at(words, k) for k, word in enumerate(words) if word not in _FILLERS), False)


def _asks_or_requests(segment: str) -> bool:
    """The segment (a clause or a part of one between commas) asks a question, or its first word
    after fillers ("now", "just", "ok") is a request verb."""
    if _opens_a_request(segment):
        return True
    segment = segment.strip()
    return bool(segment) and asks(segment) and not _EXCLAMATION.match(segment)
