"""Questions that ask for a fact: who made a thing, when it came out, what an acronym stands for,
how two things differ, how to say a phrase in another language.

"Who invented the Python programming language?", "what does SEO stand for?", "Kubernetes
最早是哪家公司开源的？", "what's the difference between RAM and storage?" name a skill's subject,
but a chat model answers them from what it knows: no skill's instructions help, and routing one
only costs the model context. A short ask in this shape is a fact question, in any of the
fourteen languages the router reads; the router routes nothing for it (it still ranks the
skills, for `list_skills`).

Deliberately narrow: only the shapes that ask about a thing's origin, maker, date,
abbreviation, how two things differ, or a phrase's translation. "What does this error mean?"
asks for help with the user's own problem and is not one; neither is a long message, which
carries a task of its own, nor a comparison that asks which to use ("… which should I pick for
our pipeline?").

Pure and deterministic; the patterns are matched on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import holds_cjk, plain_words
from proxy.core.routing.triggered_patterns import PatternTable, first_match, triggered

LONGEST_FACT_QUESTION = 160  # characters of the ask; longer ones carry a task of their own
_MADE = (
    r"(?:invent(?:ed|s)?|creat(?:ed|es)|made|found(?:ed|s)|came up with|come up with|coined|designed|"
    r"discovered|developed)"
)
# Each pattern with the words (or CJK strings) one of which it cannot match without: a pattern is
# only searched in an ask that holds one of them, so most messages cost a set test.
_FACTS: PatternTable = (
    # en
    (("who",),
     rf"\bwho (?:first |originally |actually |really )?{_MADE}\b(?! (?:this|that|these|those|it|our|my|your)\b)"),
    (("who",), r"\bwho is (?:the )?(?:inventor|creator|founder|author|father|mother) of\b"),
    (("stand",),
     r"\bwhat (?:does|do|did) (?:the )?(?:acronym |abbreviation |letters? )?[\w./+-]+(?: [\w./+-]+)? stand for\b"),
    (("acronym", "abbreviation"), r"\bwhat(?: is|'s|s)? (?:the )?(?:acronym|abbreviation) \b"),
    (("when", "year"), r"\b(?:when|what year) (?:was|were|did|is|came) [\w ./+-]{1,40}?(?:invented|created|released|"
                       r"founded|introduced|launched|made|born|come out|came out|first)\b"),
    (("which",), r"\bwhich (?:company|person|country|university|team|year) (?:first )?(?:invented|created|made|"
                 r"developed|released|owns|built|founded|open[- ]?sourced|came up with)\b"),
    # trivia about a company, a product or a person: its size, its age, its maker, where it comes from
    (("how",), r"\bhow many (?:employees|people|staff|engineers|developers|users|customers|downloads|stars) "
               r"(?:does|do|did|has|have|work)\b(?! (?:our|my|this|your|the|we|i)\b)|"
               r"\bhow old is\b(?! (?:our|my|this|your)\b)|\bhow long has [\w ./+-]{1,30}? been around\b"),
    (("did",), r"^(?:so |wait,? |btw,? )?did (?!you |we |i |our |my )[\w ./+-]{1,30}? "
               r"(?:really |actually |originally )?(?:invent|create|make|found|build|start|come up with|write)\b"),
    (("where",), r"\bwhere (?:was|were|did|does) [\w ./+-]{1,30}? (?:born|invented|created|founded|come from|"
                 r"originate)\b"),
    (("сколько", "где"), r"\bсколько (?:лет|сотрудников|человек работает)\b(?! (?:нашему|нашей|моему|моей)\b)|"
                         r"\bгде (?:был[аио]? )?(?:создан|придуман|изобретен|изобретён)"),
    (("cuántos", "cuantos", "quantos", "combien", "viele", "quanti", "ilu"),
     r"\bcu[áa]ntos (?:empleados|trabajadores)\b|\bquantos funcion[áa]rios\b|\bcombien d'employ[ée]s\b|"
     r"\bwie viele mitarbeiter\b|\bquanti dipendenti\b|\bilu pracownik[óo]w\b"),
    (("国家", "國家", "员工", "員工"), r"哪个国家|哪個國家|多少(?:员工|員工|人在)"),
    (("国", "何年", "社員"), r"どこの国|何年に(?:でき|生まれ|作られ|リリース)|社員は何人"),
    (("history", "origin", "etymology"),
     r"\b(?:what(?: is|'s|s)|tell me about|explain) the (?:history|origin|etymology) of\b"),
    # de
    (("wer",), r"\bwer hat [\w ./+-]{1,40}?(?:erfunden|entwickelt|gegründet|geschrieben|erschaffen|erstellt)\b"),
    (("wofür", "wofuer", "wann"),
     r"\bwofür steht\b|\bwofuer steht\b|\bwann wurde [\w ./+-]{1,40}?(?:erfunden|gegründet|veröffentlicht)\b"),
    # es
    (("quién", "quien"), r"\bqui[ée]n (?:invent[óo]|cre[óo]|fund[óo]|desarroll[óo]|escribi[óo]|dise[ñn][óo])\b"),
    (("siglas",), r"\bqu[ée] significan? las siglas\b|\bde qu[ée] son las siglas\b"),
    (("cuándo", "cuando"), r"\bcu[áa]ndo (?:se )?(?:invent[óo]|cre[óo]|fund[óo]|lanz[óo]|sali[óo])\b"),
    # fr
    (("qui",), r"\bqui a (?:invent[ée]|cr[ée]{2}|fond[ée]|d[ée]velopp[ée]|[ée]crit|con[çc]u)\b"),
    (("sigle", "acronyme"), r"\bque (?:veut dire|signifie) (?:le |l'|les )?(?:sigle|acronyme)\b"),
    (("quand",), r"\bquand (?:a [ée]t[ée]|est sorti|a [ée]t[ée] cr[ée]{2})\b"),
    # pt
    (("quem", "sigla"), r"\bquem (?:inventou|criou|fundou|desenvolveu|escreveu)\b|\bo que significa a sigla\b"),
    (("quando",), r"\bquando (?:foi )?(?:inventad[oa]|criad[oa]|fundad[oa]|lançad[oa]|lancad[oa])\b"),
    # it
    (("chi", "sigla"), r"\bchi ha (?:inventato|creato|fondato|sviluppato|scritto)\b|\bcosa significa la sigla\b"),
    (("quando",), r"\bquando (?:è|e) stato (?:inventato|creato|fondato)\b"),
    # ru
    (("кто",), r"\bкто (?:изобр[её]л|создал|придумал|основал|разработал|написал)\b"),
    (("расшифровывается", "означает"), r"\bкак расшифровывается\b|\bчто означает (?:аббревиатура|сокращение)\b"),
    (("когда",), r"\bкогда (?:был[аои]? )?(?:изобретен|изобретён|создан|основан|появил)"),
    # pl
    (("kto",), r"\bkto (?:wynalaz[łl]|stworzy[łl]|wymy[śs]li[łl]|za[łl]o[żz]y[łl]|napisa[łl])\b"),
    (("skrót", "skrot", "kiedy"), r"\bco oznacza skr[óo]t\b|\bjak rozwija si[ęe] skr[óo]t\b|\bkiedy powsta[łl]"),
    # tr
    (("kim", "kimler"), r"\b(?:kim|kimler) (?:icat etti|buldu|kurdu|geliştirdi|gelistirdi|yarattı|yazdı)\b"),
    (("kısaltması", "zaman"),
     r"\bkısaltması ne\b|\bneyin kısaltması\b|\bne zaman (?:icat edildi|kuruldu|çıktı|cikti)\b"),
    # id
    (("siapa",), r"\bsiapa (?:yang )?(?:menemukan|menciptakan|membuat|mendirikan|mengembangkan|penemu|pencipta|"
                 r"pendiri)\b"),
    (("kepanjangan", "singkatan"), r"\bkepanjangan (?:dari )?\b|\bsingkatan dari apa\b"),
    (("kapan",), r"\bkapan [\w ]{1,30}?(?:ditemukan|diciptakan|dirilis|didirikan)\b"),
    # vi
    (("ai",), r"\bai (?:đã )?(?:phát minh|sáng lập|tạo ra|sáng tạo|viết)\b"),
    (("tắt", "đời"), r"\bviết tắt (?:của )?(?:gì|cái gì|từ gì)\b|\bra đời (?:khi nào|năm nào)\b"),
    # zh
    (("谁",), r"谁(?:发明|創造|创造|创建|創建|写的|寫的|开发|開發|设计|設計|提出)|是谁(?:发明|开发|開發|创造|提出)"),
    (("哪", "缩写", "縮寫", "最早"),
     r"哪家公司|哪個公司|哪个公司|哪一年|什么的缩写|什麼的縮寫|是什么缩写|缩写是什么|縮寫是什麼|最早是谁|最早由"),
    # ja
    (("誰", "会社", "略"), r"誰が(?:作った|開発した|発明した|考えた|作りました|開発しました)|どこの会社|何の略"),
    (("いつ",), r"いつ(?:作られた|できた|登場した|リリースされた)"),
    # ko
    (("누가", "약자", "회사"),
     r"누가 ?(?:만들었|발명했|개발했|처음)|무엇의 약자|뭐의 약자|약자(?:인가요|야|예요|가 뭐)|어느 회사"),
    (("언제",), r"언제 (?:나왔|만들어졌|출시)"),
)
# How two things differ, and how a phrase is said in another language.
_DIFFERENCES: PatternTable = (
    (("difference", "differences", "differ"),
     r"\b(?:the )?differences? between\b|\bhow (?:is|are|does|do) [\w ./+#-]{1,40}? differ from\b"),
    (("unterschied", "diferencia", "diferencias", "différence", "différences", "difference", "diferença", "diferenças",
      "diferenca"),
     r"\bunterschied zwischen\b|\bdiferencias? entre\b|\bdiff[ée]rences? entre\b|\bdiferen[çc]as? entre\b"),
    (("differenza", "differenze", "разница", "чем", "różnica", "różnice", "roznica"),
     r"\bdifferenz[ae] (?:c'è |ci sono )?(?:tra|fra)\b|\bразница между\b|\bчем отлича\w*|\bróżnic[ae] (?:między|"
     r"miedzy)\b"),
    (("arasındaki", "perbedaan", "beda", "bedanya", "khác"),
     r"\barasındaki farklar?\b|\bperbedaan antara\b|\bapa (?:perbedaan|beda)(?:nya)?\b|"
     r"^(?!.*\b(?:kita|kami)\b)(?:perbedaan|beda)(?:nya)? .{1,40} (?:sama|dan|dengan|ama) .{1,40} apa\b|"
     r"\bkhác nhau\b|\bkhác gì\b"),
    (("区别", "區別", "不同", "違い", "차이"),
     r"有什么区别|有什麼區別|区别是什么|區別是什麼|有何不同|の違い|違いは|차이(?:가|는|점)"),
    (("difference",), r"\b(?:vs\.?|versus)\b.{1,60}?\bwhat(?:'s| is|s) the difference\b"),
    (("say", "sagt", "dice", "dit", "diz", "falo", "digo"),
     r"\bhow do (?:you|i|we) say\b|\bhow to say\b|\bwie sagt man\b|\bc[óo]mo se dice\b|\bcomment (?:dit-on|on dit)\b|"
     r"\bcomo (?:se )?(?:diz|falo|digo)\b|\bcome si dice\b"),
    (("как", "jak", "denir", "inggris", "tiếng"),
     r"\bкак (?:сказать|будет) по-\w+|\bjak (?:powiedzieć|jest) po\b|\bnasıl denir\b|\bbahasa inggris(?:nya)? apa\b|"
     r"\bnói (?:thế nào|sao) (?:trong|bằng) tiếng\b"),
    (("翻译", "翻譯", "怎么说", "何と", "영어로"),
     r"翻译成(?:英文|中文|日文|英语)|翻譯成(?:英文|中文|日文)|用英[文语]怎么说|英語で何と|영어로 (?:뭐|어떻게)"),
)
# Whether two names are one thing ("RGPD c'est la même chose que GDPR ?", "is SSO the same as SAML?"), unless
# asked of the user's own things ("is the staging database the same as prod? our migration …").
_SAMENESS: PatternTable = (
    (("same",), r"\b(?:is|are) [\w ./+#-]{1,30}? (?:the same (?:thing )?as|just another (?:name|word) for)\b"),
    (("même", "mismo", "mesma", "gleiche", "dasselbe", "selbe", "stessa", "самое", "samo", "aynı", "ayni", "giống",
      "giong"),
     r"\b(?:la même chose que|(?:es|son) lo mismo que|(?:é|e|são) a mesma coisa que|(?:das )?(?:gleiche|dasselbe|"
     r"das selbe) wie|(?:è|e) la stessa cosa|то же самое|to samo co|aynı şey mi|ayni sey mi|giống nhau không|"
     r"giong nhau khong)"),
    (("一回事", "同じ", "같은"),
     r"是一回事|是同一个东西|是同一個東西|同じ(?:もの|意味)(?:ですか|なの|\?|？)|같은 (?:거|건가요|말인가요)"),
)
# The user's own things (Turkish mi and Italian ma are a particle and "but", not "my").
_OWN = re.compile(r"\b(?:we|i|me|us|my|our|this|these|mein\w*|unser\w*|mis|mon|mes|meu|minha|nosso|nossa|"
                  r"nuestr[oa]|notre|mio|mia|nostr[oa]|мой|моя|наш\w*|mój|moja|nasz\w*)\b")
# What a term means: "what is a lead magnet in marketing", "what even is a pitch deck?", "whats idempotent
# mean in REST apis", "qué es un webhook", "什么是递归". Only a term with an article (or an acronym's "stand for",
# above), ended by the question: "what is the best way to …", "what is wrong with …", "what does this error
# mean" ask about the user's own work.
_TERM = r"[\w./+#-]+(?: [\w./+#-]+){0,3}"
_QUOTED = rf"['\"“«]?{_TERM}['\"”»]?"
# Words that point at the user's own thing ("this error", "mi código", "наш план"): a meaning asked of
# one is help with the user's own problem.
_POINTED = (r"(?:this|that|my|our|este|esta|esse|essa|isso|isto|ce|cet|cette|ça|ca|dieser|diese|dieses|das|mein\w*|"
            r"unser\w*|questo|questa|quest'|mi|mis|mon|ma|mes|meu|minha|nosso|nossa|nuestr[oa]|notre|mio|mia|nostr[oa]|"
            r"это|этот|эта|мой|моя|наш\w*|ten|ta|to|mój|moja|nasz\w*|bu|şu|ini|itu|này|đó)\b")
_DEFINITIONS: PatternTable = (
    (("what", "whats"),
     rf"^(?:so |ok |okay |quick q:? |quick question:? )?what(?: even)?(?: is|'s|s| are)(?: even)? (?:a|an) "
     rf"(?!good |best |better |simple |easy |quick |fast |nice |great |reasonable |sane |solid |cheap |free ){_TERM}"
     rf"(?: in (?:the context of )?{_TERM})?(?:\?|$|[.,;!]\s*(?:is it|does it|one|in|like|asking)\b)"),
    (("what", "whats", "mean"),
     rf"^(?:so |ok |okay )?what(?: does|'s|s| do) (?!this |that |these |those |it |my |our |your |the error)"
     rf"{_TERM} mean(?: in (?:the context of )?{_TERM})?(?:\?|$)"),
    (("why",), r"^why (?:is|are) [\w./+#-]+ (?:called|abbreviated|named|spelled)\b"),
    # how a kind of thing works, or why a language or tool is as it is, asked in general ("how does a
    # compiler turn code into …", "why is python slow compared to c?"); of the user's own thing it is help
    (("how", "work", "works"),
     r"^(?:so |ok |okay |genuinely curious,? |curious,? )?how (?:does|do) (?:a|an) [\w./+#-]+(?: [\w./+#-]+)? "
     r"(?:actually |really )?(?:work|turn|know|decide|handle|store|find)\b(?!.*\b(?:my|our|we|this|these)\b)"),
    (("why",),
     r"^why (?:is|are) (?!my |our |this |these |it |that )[\w./+#-]+ (?:so )?(?:slow|fast|slower|faster|popular|"
     r"hated|loved|hard|easy)\b(?!.*\b(?:my|our|we|this|these)\b)"),
    (("tắt", "tat"),
     r"\b(?:sao|tại sao|vì sao|tai sao|vi sao) .{1,30} (?:lại )?viết tắt là\b|\bviết tắt của .{1,30} là gì\b"),
    (("what", "whats"),
     r"^what(?:'s| is|s) [\w./+#-]+ in (?!our |my |the |this |that |your )[\w ./+#-]{1,20}?(?:\?|$)"),
    (("qué", "que", "was", "est", "quoi"),  # qu'est-ce and c'est are no words of their own
     rf"^¿?(?:qu[ée] es (?:un|una)|was (?:ist|sind) (?:ein|eine|eigentlich ein|eigentlich eine)|"
     rf"qu'est-ce qu'(?:un|une)|c'est quoi (?:un|une)) {_TERM}(?:\?|$)"),
    (("что", "é", "e", "cosè", "cos", "co", "nedir", "demek", "anlama", "itu", "artinya", "là", "la", "gi"),
     rf"^(?:что такое|o que (?:é|e|significa) (?:um|uma)?|(?:che )?cos(?:'| )?è (?:un|una|uno|un')?|co to jest|"
     rf"apa itu|apa sih) ?{_TERM}(?: (?:в двух словах|простыми словами|w skrócie|singkatnya))?(?:\?|$)|"
     rf"^{_TERM} (?:nedir|ne demek|ne anlama gelir|là gì|la gi|itu apa|artinya apa)(?: (?:kısaca|ya|sih))?(?:\?|$)"),
    # "what does X mean", said the way each language says it: "o que quer dizer churn?", "was bedeutet SLA?",
    # "KPI significa o quê?", "что значит MVP?", "ROI nghĩa là gì"; never of this error, my code, our plan
    (("meaning",), rf"^what(?:'s| is) the meaning of (?!{_POINTED}){_QUOTED} ?(?:\?|$)"),
    (("significa", "quer", "quiere", "veut", "signifie", "bedeutet", "heißt", "heisst", "vuol", "значит", "означает",
      "znaczy", "oznacza", "arti", "artinya", "maksud", "maksudnya"),
     rf"^¿?(?:(?:o )?que (?:significa|quer dizer)|qu[ée] (?:significa|quiere decir)|que (?:veut dire|signifie)|"
     rf"was (?:bedeutet|hei(?:ß|ss)t)|(?:cosa|che) (?:significa|vuol dire)|что (?:значит|означает)|"
     rf"co (?:znaczy|oznacza)|apa (?:arti|maksud)(?:nya)?(?: dari)?) (?!{_POINTED}){_QUOTED} ?(?:\?|$)"),
    (("significa", "quer", "veut", "значит", "означает", "anlamı", "anlami", "maksudnya", "nghĩa", "nghia"),
     rf"^(?!{_POINTED}){_QUOTED} (?:significa o qu[eê]|quer dizer o qu[eê]|(?:ça |ca )?veut dire quoi|значит|"
     rf"означает|(?:ne )?anlam[ıi] ne|maksudnya apa|(?:có )?nghĩa là gì|nghia la gi)(?: mesmo| exactement)? ?(?:\?|$)"),
    (("意思", "意味", "って", "뜻"),
     r"^[^、。，,这這它]{1,15}(?:是什么意思|是什麼意思|什么意思|什麼意思)[？?]?$|"
     r"^[^、。これそ]{1,15}(?:って(?:何|なに|どういう意味)|の意味は)(?:ですか)?[？?]?$|"
     r"^[^,이그]{1,15}(?:이|가)? ?(?:무슨 뜻|뜻이 뭐)(?:이야|이에요|인가요|예요|에요|야)?[？?]?$"),
    (("什么是", "什麼是", "とは", "란"),
     r"^(?:请问)?(?:什么是|什麼是)[^，,。这這]{1,12}[？?]?$|^[^、。]{1,12}とは(?:何|なん|なに)(?:ですか)?[？?]?$|"
     r"^[^,]{1,12}(?:이)?란 (?:무엇인가요|뭐예요|뭔가요)[？?]?$"),
)
# A comparison that asks which to use is a decision about the user's own work, not a fact; one that
# asks whether a difference is significant is a statistical test on the user's data.
_CHOICE = re.compile(r"\b(?:which|should|recommend|for (?:my|our))\b|哪个|該用|应该|どっち|어느 것|"
                     r"\bsignifi(?:cant|kan)\b|\banlamlı\b|显著|顯著")


# "…, in one sentence", "…, коротко объясни", "…，一句话说明": how short the answer should be, said after
# the question. It asks for no more than the question did, so a fact question keeps its shape without it.
_BREVITY = (
    r"(?:briefly|quickly|simply|in short|in a nutshell|in simple terms|in plain english|like i'?m five|eli5|tl;?dr|"
    r"in (?:one|a|two|a few|1|2|3) (?:sentences?|words?|lines?)|short answer|in una riga|en una l[ií]nea|"
    r"em uma linha|numa linha|en une ligne|in einer zeile|одной строкой|w jednej linijce|tek satırda|"
    r"dalam satu baris|trong một dòng|"
    r"en pocas palabras|en breve|brevemente|en una frase|resumid[oa]|em poucas palavras|resumidamente|"
    r"em uma frase|numa frase|rapidinho|en deux mots|en bref|en une phrase|bri[eè]vement|en quelques mots|"
    r"kurz(?: und knapp| erkl[aä]rt)?|in einem satz|in wenigen worten|einfach erkl[aä]rt|in poche parole|"
    r"in una frase|in due parole|коротко|кратко|вкратце|в двух словах|простыми словами|одним предложением|"
    r"krótko|w skrócie|w jednym zdaniu|w dwóch słowach|prostymi słowami|kısaca|bir cümleyle|singkat(?:nya| saja| aja)?|"
    r"secara singkat|dalam satu kalimat|ngắn gọn|ngan gon|trong một câu|"
    r"一句话|一句話|简单(?:说|讲|解释)?|簡單(?:說|講|解釋)?|简短|簡短|一言で|簡単に|手短に|간단히|짧게|한 문장으로)"
)
_EXPLAIN = (r"(?:explain(?: it)?|tell me|erkl[äa]r(?:e|'s)?(?: es)?|explica(?:lo|me)?|explique|spiega(?:mi)?|"
            r"объясни(?:те)?|поясни|расскажи|wyjaśnij|açıkla|anlat|jelaskan|giải thích|giai thich|说明|說明|解释|解釋|"
            r"说一下|說一下|概括|説明して|教えて|설명해 ?줘|설명해 ?주세요|알려줘)")
_BREVITY_TAIL = re.compile(
    rf"\s*[,，、;:.!?。！？]\s*(?:(?:pls|please|plz) )?(?:{_EXPLAIN} ?)?{_BREVITY}(?: ?{_EXPLAIN})?"
    rf"(?: ?(?:pls|please|plz|bitte|por favor|пожалуйста|proszę|lütfen|ya|dong|nhé|nha|吧|呗|唄))?\s*[.!?。！？]*$")


def without_brevity_tail(ask: str) -> str:
    """`ask` without the length of answer it asks for after the question (`_BREVITY_TAIL`)."""
    return _BREVITY_TAIL.sub("", ask)


_LONGEST_BREVITY = 60  # characters: "please explain it in a few sentences pls", and more


def only_brevity(ask: str) -> bool:
    """`ask` says only how short the answer should be ("en deux mots ?"): the question is before it."""
    return len(ask) <= _LONGEST_BREVITY and not without_brevity_tail(f". {ask}")


_FACT_SHAPES = triggered(_FACTS)
_DIFFERENCE_SHAPES = triggered(_DIFFERENCES)
_DEFINITION_SHAPES = triggered(_DEFINITIONS)
_SAMENESS_SHAPES = triggered(_SAMENESS)


def asks_for_a_fact(ask: str) -> bool:
    """`ask` (normalised) is a short question about a thing's origin, maker, date or abbreviation."""
    if len(ask) > LONGEST_FACT_QUESTION:
        return False
    if len(ask) > LONGEST_FACT_QUESTION // 2 and holds_cjk(ask):
        return False
    ask = without_brevity_tail(ask)
    words = plain_words(ask)
    if first_match(_FACT_SHAPES, ask, words) or first_match(_DEFINITION_SHAPES, ask.strip(), words):
        return True
    if first_match(_SAMENESS_SHAPES, ask, words) is not None and _OWN.search(ask) is None:
        return True
    return first_match(_DIFFERENCE_SHAPES, ask, words) is not None and _CHOICE.search(ask) is None
