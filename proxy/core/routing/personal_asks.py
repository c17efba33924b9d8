"""Asks about how to feel, or how to act toward a person: advice a model gives by itself.

"I write Solidity smart contracts for a living and my grandma asked if I'm a criminal. what should I
tell her?", "my PR got 47 comments from one reviewer, how do I not take it personally?", "I got our
AWS bill down by 60% and nobody noticed. how do I make my manager see it without bragging?" name a
skill's subject, but the work is done: what they ask is how to talk to someone or how to live with
a feeling, and no skill's instructions for smart contracts, reviews or cloud costs help. The router
routes nothing for such an ask (it still ranks the skills, for `list_skills`), unless the message
writes a skill's full name or asks for work as well ("… draft me the reply", "write the summary").

What marks one, in the languages the router reads:

- **talking to someone close, or above**: a verb of telling, explaining or convincing whose object
  is a person ("tell her", "explain it to my parents", "convince my boss", "make my manager see",
  "sag meiner Mutter", "decirle a mi jefe", "告诉我妈");
- **a feeling or a way to behave** as what is asked: "take it personally", "set boundaries", "without
  bragging", "am I overreacting", "how do I cope", "stop worrying", "switch off", "impostor", "is it
  rude to", "feel guilty"; "normal" only of a feeling ("is it normal to feel …"), since "is this
  normal?" after a log line asks about the system.

Narrow on purpose: each marker is a phrase, never a lone word a task uses ("review", "tell",
"manager", "team" are everywhere in work), and an ask that also asks for work is left alone. Pure
and deterministic, on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import ASKED_SENTENCE_END, holds_cjk, plain_words, sentences
from proxy.core.routing.triggered_patterns import PatternTable, first_match, triggered
from proxy.core.routing.word_pairs import pair_in, word_pairs

LONGEST_PERSONAL_ASK = 400  # characters; a longer ask carries a task of its own

# People one talks to about one's own life: family, partner, friends, and the people one reports to
# or works beside, as the object of telling ("tell my manager"), not as a report's audience.
_PEOPLE = (
    r"(?:her|him|them|(?:my|our) (?:mom|mum|mother|dad|father|parents|family|wife|husband|partner|girlfriend|"
    r"boyfriend|grandma|grandpa|grandmother|grandfather|kids?|son|daughter|sister|brother|friends?|roommate|"
    r"in-laws|manager|boss|lead|coworkers?|colleagues?|team ?mates?|intern|junior|senior|skip(?:-| )level|cto|ceo|"
    r"founder|mentor|advisor|supervisor|therapist)|(?:the|our) (?:interviewer|recruiter|hiring manager))"
)
# The same, without the pronouns: "make them see the new column" is about a report's readers.
_CLOSE = _PEOPLE.replace("(?:her|him|them|", "(?:", 1)
# Feelings a person has (not a system: "empty", "stuck", "broken", "frustrating" describe bugs too).
_FEELING = (
    r"(?:guilty|bad|awful|terrible|stupid|dumb|useless|worthless|like an? (?:idiot|fraud|failure|imposter|impostor)|"
    r"left out|unappreciated|undervalued|invisible|burned out|burnt out|drained|numb|hopeless|insecure|ashamed|"
    r"embarrassed|humiliated|jealous|envious|bitter|resentful|upset|hurt|sad|down|lonely|weird|awkward|anxious|"
    r"nervous|scared|terrified|overwhelmed|empty|lost|demotivated|unmotivated)"
)
# Each a family of phrases, read anywhere in the ask, with the words it cannot match without: an ask that
# holds none of a family's words costs a set test, not a scan (see triggered_patterns).
_LATIN_FAMILIES: PatternTable = (
    # telling, explaining, convincing, to a person
    (("tell", "say", "explain", "convince", "persuade", "talk", "break", "apologize", "apologise", "confront",
      "word", "stand"),
     rf"\b(?:(?:tell|say (?:to|it to|this to|that to|something to|anything to)|explain (?:it |this |that |what i do |"
     rf"my job )?to|convince|"
     rf"persuade|talk to|break (?:it|the news) to|apologi[sz]e to|confront|word (?:it|this|that) to|stand up to) "
     rf"{_PEOPLE}(?! apart))\b"),
    # ... and verbs whose object is as often a thing ("reply to them in bulk", "how do I correct them in pandas"):
    # only with a person named
    (("respond", "reply", "say", "push", "correct"),
     rf"\b(?:(?:respond to|reply to|say no to|push back on|correct) {_CLOSE})\b"),
    (("make",),
     rf"\b(?:make {_CLOSE} (?:see|notice|understand|realize|realise|appreciate|care|listen))\b"),
    (("way",),
     r"\b(?:(?:a kind|a nice|a polite|the best|a good) way to (?:tell|say|explain|ask))\b"),
    # feelings
    (("feel", "feeling", "felt"),
     rf"\b(?:(?:i|i'm|i am|makes me|made me) (?:just |really |so |kinda |kind of |honestly |pretty |a bit |still )?"
     rf"(?:feel|feeling|felt) (?:so |really |pretty |a bit |kind of |kinda |like )?{_FEELING})\b"),
    (("upset", "hurt", "heartbroken", "devastated", "crushed", "miserable", "depressed", "humiliated",
      "ashamed", "embarrassed", "jealous", "envious", "bitter", "lonely", "drained", "demotivated",
      "unmotivated"),
     r"\b(?:(?:i'm|i am|i was|i've been|feeling) (?:so |really |pretty |a bit |kind of |kinda |still )?"
     r"(?:upset|hurt|heartbroken|devastated|crushed|miserable|depressed|humiliated|ashamed|embarrassed|jealous|"
     r"envious|bitter|lonely|drained|demotivated|unmotivated))\b"),
    (("cried", "crying", "tears", "emotionally", "want", "hands", "stop", "avoid", "raise", "rise", "bump",
      "head", "keeps", "sleep"),
     r"\b(?:cried|crying|in tears|emotionally|want to (?:cry|quit|disappear|crawl)|hands shake|"
     r"can't stop (?:replaying|thinking)|avoid becoming (?:their|the|everyone's)|\d+ ?% (?:raise|pay rise|bump)|"
     r"in my head|keeps me up at night|lose sleep|losing sleep)\b"),
    # coping and ways to behave, asked
    (("personally", "boundary", "boundaries", "let", "move", "over", "calm", "unwind", "decompress", "recharge",
      "switch", "unplug", "keep", "bounce", "without", "brag", "bragging", "humble", "humblebrag", "enemy",
      "enemies", "sensitive", "skin"),
     r"\b(?:take (?:\w+ ){0,2}personally|set (?:a |some )?boundar(?:y|ies)|boundaries with|let it go|let it be|"
     r"move on(?! to)|get over (?:it|this|that)|calm down|calm my nerves|unwind|decompress|recharge|switch off|unplug|"
     r"keep going after|bounce back|without (?:bragging|sounding|coming across|looking like|seeming|getting (?:labeled|"
     r"labelled|bitter)|it becoming|making (?:it|things) awkward|burning bridges)|brag(?:ging)?|humble ?brag|"
     r"make an enemy|making enemies|too sensitive|thick(?:er)? skin)\b"),
    (("am", "anyone", "thing", "weird", "normal", "rude", "unprofessional", "awkward", "petty", "selfish", "okay",
      "ok", "bad", "fair"),
     r"\b(?:am i (?:overreacting|wrong|crazy|the only one|too|being)|anyone else feel|is (?:this|that|it) (?:a thing|"
     r"weird|normal to feel)|is it (?:rude|weird|unprofessional|awkward|petty|selfish|okay|ok|bad|fair) "
     r"(?:to|that|if) (?:i|me|ask|say|tell|feel|not|push)|is it (?:ok|okay) to push back|is it normal to (?:feel|be|"
     r"get|want|hate|miss|dream|cry|think about|forget|struggle))\b"),
    (("cope", "stay", "not", "deal"),
     r"\b(?:how (?:do|can|should|would) (?:i|you|people|others) (?:cope|stay (?:calm|motivated|sane)|not (?:panic|"
     r"freak out|take|feel|get)|deal with (?:the |my |this |that )?(?:stress|guilt|anxiety|pressure|disappointment|"
     r"rejection|shame|jealousy|frustration|feelings?|emotions?|boss|manager|coworker|colleague|team ?mate))|"
     r"cope with)\b"),
    (("stop", "imposter", "impostor", "credit", "recognition", "noticed", "seriously", "celebrate", "should", "wonder",
      "question"),
     r"\b(?:stop (?:worrying|overthinking|thinking about (?:it|work)|feeling|checking (?:my )?(?:phone|slack|email)s?)|"
     r"impost[eo]r|get (?:credit|recognition|noticed) for|be taken seriously|"
     r"(?:celebrate|what should i do with) (?:it|this|my (?:free|extra) (?:time|afternoon|evening|day|weekend))|"
     r"(?:wonder|question) if (?:any of )?(?:it|this|my job|my work) (?:matters|is worth))\b"),
    # de es fr pt
    (("sag", "sage", "erklär", "erkläre", "persönlich", "grenzen", "decirle", "explicarle", "contarle", "digo",
      "explico", "cuento", "tomármelo", "tomarlo", "límites", "dire", "expliquer", "personnellement", "limites",
      "dizer", "explicar", "falar", "falo", "contar", "conto", "pessoal"),
     r"\b(?:sag(?:e)? (?:ich )?(?:meiner|meinem|ihr|ihm)|erklär(?:e)? (?:ich )?(?:meiner|meinem|meinen)|"
     r"persönlich nehmen|grenzen setzen|(?:decirle|explicarle|contarle) a (?:mi|mis)|"
     r"le (?:digo|explico|cuento) a (?:mi|mis)|tomármelo personal|tomarlo personal|poner límites|"
     r"dire (?:non )?à (?:ma|mon|mes)|expliquer à (?:ma|mon|mes)|le prendre personnellement|poser des limites|"
     r"dizer (?:não )?(?:à|a|pra|para) (?:minha|meu|meus|minhas)|explicar (?:à|a|pra|para) (?:minha|meu|meus)|"
     r"(?:falar|falo|digo|contar|conto) (?:ao|à|pro|pra|para o|para a|com (?:o|a)?) ?(?:minha|meu) (?:m[ãa]e|pai|chefe|"
     r"gestora?|l[íi]der|namorad[oa]|esposa|marido|fam[íi]lia|av[óo]|irm[ãa]o?)|"
     r"levar para o pessoal|impor limites)\b"),
)
# The other languages the router reads: telling a close person, thanking people, celebrating, treating
# oneself, how one feels, getting over it, whether feeling so is normal; each with the words it needs.
_OTHER_LANGUAGES: PatternTable = (
    (("dire", "spiegare", "dirlo", "spiegarlo", "dico", "spiego"),
     r"\b(?:dire|spiegare|dirlo|spiegarlo|(?:lo )?dico|(?:lo )?spiego) (?:a|alla|al|ai) (?:mia|mio|miei|mie)\b"),
    (("поговорить",), r"\b(?:(?:поговорить|поговори) с (?:ним|ней|ними|коллегой|начальником|мамой|папой)|"
                      r"с (?:ним|ней|ними) (?:\w+ )?поговорить)\b"),
    (("сказать", "объяснить", "рассказать", "признаться"),
     r"\b(?:сказать|объяснить|рассказать|признаться) (?:маме|папе|родителям|жене|мужу|девушке|парню|начальнику|"
     r"боссу|руководителю|тимлиду|коллегам)\b"),
    (("powiedzieć", "powiedziec", "wytłumaczyć", "wytlumaczyc", "wyjaśnić", "wyjasnic"),
     r"\b(?:powiedzieć|powiedziec|wytłumaczyć|wytlumaczyc|wyjaśnić|wyjasnic) (?:mamie|tacie|rodzicom|żonie|zonie|"
     r"mężowi|mezowi|dziewczynie|chłopakowi|chlopakowi|szefowi|szefowej)\b"),
    (("anneme", "babama", "aileme", "eşime", "esime", "sevgilime", "patronuma", "müdürüme", "mudurume", "yöneticime",
      "yoneticime", "aramızda", "aramizda"),
     r"\b(?:(?:anneme|babama|aileme|eşime|esime|sevgilime|patronuma|müdürüme|mudurume|yöneticime|yoneticime)"
     r"(?: [^\W\d_]+){0,4} (?:nasıl|nasil)|"
     r"aramızda nasıl|aramizda nasil)\b"),
    (("bilang", "ngomong", "jelasin", "menjelaskan", "cerita"),
     r"\b(?:bilang|ngomong|jelasin|menjelaskan|cerita) (?:ke|kepada|sama) (?:ibu|ayah|ortu|orang tua|pacar|istri|"
     r"suami|bos|atasan|keluarga)\b"),
    (("nói", "noi", "giải", "giai"),
     r"\b(?:nói|noi|giải thích|giai thich) (?:với|voi|cho) (?:mẹ|me|bố|bo|ba|vợ|vo|chồng|chong|người yêu|"
     r"nguoi yeu|sếp|sep|gia đình)\b"),
    (("bedanken", "agradecer", "agradecerles", "agradecerle", "remercier", "поблагодарить", "podziękować",
      "podziekowac", "teşekkür", "tesekkur", "berterima", "ringraziare", "ringraziarli", "ringraziarla",
      "ringraziarvi"),
     r"\b(?:sich bedanken|mich bedanken|bei (?:den|meinen|meinem) \w+ bedanken|agradecer(?:les|le)?|remercier|"
     r"ringraziar\w*|поблагодарить|podziękować|podziekowac|teşekkür etmek|tesekkur etmek|berterima kasih)\b"),
    (("feiern", "feiere", "celebrarlo", "festejar", "festejarlo", "fêter", "feter", "célébrer", "comemorar",
      "festeggiare", "festeggiarlo", "отпраздновать", "отметить", "świętować", "swietowac", "uczcić", "uczcic",
      "merayakan", "rayain", "ngerayain", "mừng", "mung", "kutla", "kutlasam", "kutlamak", "kutlayalım",
      "kutlayalim", "kutlamalı", "kutlayabiliriz", "kutlarız"),
     r"\b(?:feiern wir|feiere ich|feiern|celebrarlo|festejar(?:lo)?|fêter|feter|célébrer ça|comemorar|"
     r"festeggiar\w*|отпраздновать|отметить это|świętować|swietowac|uczcić|uczcic|kutla\w*|merayakan|rayain|"
     r"ngerayain|ăn mừng|an mung)\b"),
    (("belohnen", "premiarme", "gusto", "plaisir", "récompenser", "recompensar", "premiarmi", "побаловать",
      "nagrodzić", "ödüllendir", "ödüllendirmek", "reward", "thưởng", "thuong"),
     r"\b(?:mich belohnen|premiarme|darme un gusto|me faire plaisir|me récompenser|me recompensar|premiarmi|"
     r"побаловать себя|nagrodzić się|kendimi ödüllendir\w*|self reward|tự thưởng|tu thuong)\b"),
    (("fühle", "fühl", "siento", "sentí", "sens", "senti", "sinto", "sento", "sentito", "sentita", "чувствую",
      "czuję", "czuje", "hissediyorum", "hissettim", "cảm", "cam", "merasa", "ngerasa"),
     r"\b(?:ich fühle mich|fühl(?:e)? mich|me siento|me sentí|je me sens|je me suis senti|me sinto|me senti|"
     r"mi sento|mi sono sentit[oa]|чувствую себя|czuję się|czuje sie|hissediyorum|hissettim|cảm thấy|cam thay|"
     r"(?:aku|saya|gue|gw) (?:merasa|ngerasa))\b"),
    (("schäme", "schuldgefühle", "lampenfieber", "selbstwertgefühl", "culpable", "autoestima", "vergüenza",
      "coupable", "honte", "confiance", "culpado", "culpada", "vergonha", "colpa", "vergogna", "стыдно",
      "самооценка", "самооценки", "самооценку", "самооценкой", "winy", "wstyd", "pewność", "pewnosc", "suçlu",
      "suclu", "utanıyorum", "özgüven", "özgüvenim", "özgüvenimi", "ozguven", "grogi", "minder", "percaya", "pede",
      "ti", "xấu", "xau", "tin"),
     r"\b(?:schäme mich|schuldgefühle|lampenfieber|selbstwertgefühl|culpable|autoestima|vergüenza|coupable|"
     r"j'ai honte|confiance en moi|culpad[oa]|vergonha|in colpa|vergogna|мне стыдно|самооценк\w*|poczucie winy|"
     r"wstyd mi|pewność siebie|pewnosc siebie|suçlu|suclu|utanıyorum|özgüven\w*|ozguven\w*|grogi|minder|"
     r"percaya diri|lebih pede|gak pede|ga pede|tự ti|tu ti|xấu hổ|xau ho|tự tin)\b"),
    (("darüber", "drüber", "hinwegkommen", "hinwegkomme", "superarlo", "supero", "remets", "remettre", "superar",
      "пережить", "выгореть", "telafi", "atlatırım", "atlatmak", "atlatabilirim", "vượt", "move"),
     r"\b(?:(?:darüber|drüber) hinwegkommen|hinweg(?:kommen|komme)|superarlo|lo supero|m'en remettre|me remets|"
     r"me remettre|superar isso|пережить это|как не выгореть|telafi|atlatırım|atlatmak|atlatabilirim|"
     r"vượt qua chuyện|move on dari)\b"),
    # am I overreacting, in the other languages
    (("empfindlich", "überempfindlich", "sensible", "exagero", "exagerando", "exagère", "sensível",
      "esagero", "esagerando", "чувствительный", "чувствительная", "преувеличиваю", "накручиваю", "przesadzam",
      "abartıyor", "hassasım", "lebay", "baper", "nhạy"),
     r"\b(?:bin ich (?:zu |über)?empfindlich|überempfindlich|soy (?:demasiado|muy) sensible|exagero|estoy exagerando|"
     r"je suis trop sensible|j'exagère|est-ce que j'exagère|estou exagerando|sou sensível demais|"
     r"sono troppo sensibile|esagero|sto esagerando|я слишком чувствительн\w*|я преувеличиваю|я накручиваю|"
     r"przesadzam|abartıyor muyum|fazla mı hassasım|(?:aku|gue|gw) (?:yang )?(?:lebay|baper)|"
     r"(?:mình|minh) có nhạy cảm quá)\b"),
    # how to tell him or her, without naming who: "come glielo dico senza litigare?"
    (("glielo", "dirglielo", "digo", "decírselo", "falo", "dire", "sag", "sage", "сказать", "powiedzieć", "söylerim",
      "söyleyeyim", "ngomongnya", "bilangnya"),
     r"\b(?:come glielo dico|come dirglielo|cómo se lo digo|cómo decírselo|como (?:eu )?(?:falo|digo) (?:com|pra|para) "
     r"(?:ele|ela)|comment (?:le )?lui dire|wie sag(?:e)? ich(?: es)? (?:ihm|ihr)|как (?:ему|ей) (?:это )?сказать|"
     r"jak (?:mu|jej) (?:to )?powiedzieć|ona nasıl (?:söylerim|söyleyeyim)|gimana (?:ngomongnya|bilangnya))\b"),
    # unwinding, in the other languages ("come fate voi a staccare", "pra desestressar")
    (("abschalten", "runterkommen", "desestresarme", "desconectar", "décompresser", "déconnecter", "staccare",
      "rilassarmi", "desestressar", "relaxar", "расслабиться", "отвлечься", "odstresować", "odpocząć", "dağıtmak",
      "rahatlamak", "healing", "stres", "stress", "thư", "thu"),
     r"\b(?:abschalten|runterkommen|desestresarme|desconectar del trabajo|décompresser|déconnecter du boulot|"
     r"a staccare|rilassarmi|desestressar|relaxar|расслабиться|отвлечься от работы|odstresować się|"
     r"kafa dağıtmak|rahatlamak|butuh healing|melepas stres|xả stress|xa stress|thư giãn|thu gian)\b"),
    # calming one's nerves before a talk or an exam ("jak się uspokoić przed wystąpieniem?", "如何缓解紧张")
    (("beruhigen", "lampenfieber", "calmarme", "tranquilizarme", "nervios", "acalmar", "nervosismo", "calmer", "trac",
      "calmarmi", "agitazione", "успокоиться", "волноваться", "нервничать", "uspokoić", "uspokoic", "tremę", "trema",
      "sakinleşmek", "sakinleşirim", "tenang", "menenangkan", "grogi", "gugup", "tĩnh", "hồi"),
     r"\b(?:(?:mich )?beruhigen|lampenfieber|calmarme|tranquilizarme|(?:los|mis) nervios|(?:me )?acalmar|"
     r"nervosismo|me calmer|le trac|calmarmi|agitazione|успокоиться|не (?:волноваться|нервничать)|"
     r"(?:się )?uspokoi[ćc]|tremę|trema|sakinleş(?:mek|irim)|biar tenang|menenangkan diri|grogi|gugup|"
     r"bình tĩnh|hồi hộp)\b"),
    (("冷静", "紧张", "緊張", "落ち着", "진정", "긴장", "떨지"),
     r"冷静下来|冷靜下來|缓解紧张|緩解緊張|不紧张|不緊張|别紧张|落ち着く方法|落ち着け|緊張しない|緊張をほぐ|"
     r"마음을 진정|긴장(?:을)? (?:안|풀|덜|줄이)|떨지 않"),
    # cheering the user up ("Dimmi qualcosa per tirarmi su", "muntere mich auf", "pociesz mnie")
    (("cheer", "tirarmi", "aufmuntern", "muntere", "animarme", "anímame", "animame", "moral", "animar", "anima",
      "подбодри", "подбодрить", "pociesz", "pocieszyć", "moralimi", "neşelendir", "neselendir", "hibur", "menghibur",
      "ủi", "vui"),
     r"\b(?:cheer me up|(?:per )?tirarmi su|(?:mich )?aufmuntern|muntere mich auf|anímame|animame|animarme|"
     r"(?:me )?remonter le moral|remonte-moi le moral|me animar|me anima|подбодри(?:ть)? меня|подбодри|"
     r"pociesz mnie|pocieszyć mnie|moralimi düzelt|beni neşelendir|beni neselendir|hibur aku|menghibur(?:ku| aku)|"
     r"an ủi (?:mình|tôi)|làm (?:mình|tôi) vui)\b"),
    # what the model would do in the user's place
    (("stelle", "lugar", "place", "posto", "месте", "miejscu", "yerimde", "jadi", "là"),
     r"\b(?:an meiner stelle|en mi lugar|à ma place|no meu lugar|al mio posto|на (?:моём|моем) месте|"
     r"na moim miejscu|benim yerimde olsan|kalau (?:kamu|lo|lu) jadi (?:aku|gue|gw)|"
     r"nếu (?:bạn|là bạn) là (?:mình|tôi))\b"),
    # saying it tactfully to someone ("nói sao cho khéo mà ko thành cãi nhau", how do I say it without a fight)
    (("nói", "noi"),
     r"\b(?:nói|noi) (?:sao|thế nào|như thế nào|the nao) (?:cho|để|de) (?:khéo|kheo|tế nhị|nhẹ nhàng)\b"),
    (("normal", "normale", "нормально", "normalne", "wajar", "bình", "binh"),
     r"\b(?:normal, dass ich|normal dass ich|normal que (?:yo|me)|normal sentir|normal que je|"
     r"normal de (?:me|se) sentir|normal (?:eu|que eu)|normale che io|normale sentir\w*|нормально,? что я|"
     r"нормально ли,? что я|normalne,? że (?:się|ja|czuję|czuje)|wajar (?:gak|nggak|ga|tidak) sih|apakah wajar|"
     r"(?:bình thường|binh thuong) (?:không|ko|khong))\b"),
)

_PERSONAL_PATTERNS = triggered(_LATIN_FAMILIES + _OTHER_LANGUAGES)  # one set test for all of them
_CJK_PERSONAL = re.compile(
    r"(?:告诉|告訴|跟|和|向)(?:我)?(?:妈|媽|爸|父母|家人|老婆|老公|女朋友|男朋友|对象|對象|领导|領導|老板|老闆|上司)"
    r".{0,6}?(?:说|說|解释|解釋)|怎么跟.{0,6}?(?:解释|解釋|说|說)|(?:太|很)?(?:内耗|內耗)|冒名顶替|冒名頂替|"
    r"庆祝|慶祝|委屈|难受|難受|心累|玻璃心|我哭了|哭了一|泣いた|泣きそう|落ち込|凹ん|へこん|속상|서운|멘탈|울었|"
    r"(?:感觉|感覺|觉得|覺得)自己(?:很|好|太)?(?:没用|沒用|失败|失敗|多余|多餘|差劲|差勁|笨)|役立たず|"
    r"(?:母|父|親|両親|上司|彼女|彼氏|妻|夫)に.{0,8}?(?:説明|伝え|言え|話せ)|"
    r"(?:엄마|아빠|부모님|상사|팀장|여자친구|남자친구)님?(?:한테|에게|께).{0,16}?(?:설명|말|얘기)|쓸모없|무능하게|"
    r"예민한 건가|예민한가|제가 이상한|気にしすぎ|私がおかしい|我是不是太敏感|是不是我想多了|스트레스 풀|気分転換|解压|"
    r"자존감|자신감|죄책감|정상인가요|정상인가|お祝い|祝いたい|罪悪感|自己肯定感|自信がな|"
    r"立ち直|乗り越え|普通ですか|普通なの|愧疚|内疚|自卑|走出来|释怀|釋懷|"
    r"安慰我|安慰一下|打打气|打打氣|元気づけて|励まして|위로해|위로 좀|기운 (?:좀 )?나게"
)


# How to talk to a person close to the user, asked in any word order: a person (a relative, a partner, a
# boss or a colleague, or him and her) and a verb of telling of the same language in one question ("как с
# ним нормально поговорить?", "jak to powiedzieć szefowi?", "patronuma nasıl söylerim?", "nên nói với sếp
# thế nào?"). Words only, so the shape holds where no phrase above lists the order.
_PERSON_AND_TELLING = word_pairs((
    ("mom mum dad parents wife husband boyfriend girlfriend partner boss manager colleague coworker roommate him her",
     "tell say talk explain convince confront apologize apologise"),
    ("mutter mama vater papa eltern frau mann freund freundin chef chefin kollege kollegin ihm ihr",
     "sagen sage sag erklären erkläre reden rede sprechen ansprechen überzeugen"),
    ("mère maman père papa parents femme mari copain copine chef cheffe patron collègue lui",
     "dire dis expliquer explique parler parle convaincre annoncer"),
    ("madre mamá padre papá padres esposa esposo novio novia pareja jefe jefa compañero compañera él ella",
     "decir digo decirle decírselo explicar explico explicarle hablar hablarle convencer"),
    ("mãe mae pai pais esposa marido namorado namorada chefe colega gestor gestora ele ela",
     "dizer digo falar falo explicar convencer conversar"),
    ("mamma madre papà padre genitori moglie marito ragazzo ragazza capo collega lui lei",
     "dire dico dirgli dirle spiegare spiegargli parlare parlargli convincere"),
    ("маме папе родителям жене мужу парню девушке начальнику боссу коллеге ним ней",
     "сказать скажу объяснить поговорить поговорю убедить"),
    ("mamie tacie rodzicom żonie mężowi chłopakowi dziewczynie szefowi szefowej koledze koleżance nim nią",
     "powiedzieć powiem wytłumaczyć porozmawiać przekonać"),
    ("anneme babama aileme eşime sevgilime patronuma müdürüme ona",
     "söylerim söyleyeyim söylesem anlatayım anlatırım açıklarım konuşayım konuşsam"),
    ("ibu ayah ortu istri suami pacar pacarku bos atasan",  # not dia: "dia bilang …" is "he said …"
     "bilang ngomong jelasin menjelaskan ngobrol meyakinkan"),
    ("mẹ bố vợ chồng sếp", "nói giải thuyết"),  # not ba (dad, and three); thích alone is "like"
))
_A_QUESTION = re.compile(r"[?？]\s*$|\b(?:không|ko|khong|nhỉ|ya|sih)\s*$")
LONGEST_TELLING_ASKED = 30  # words


def _telling_asked(ask: str) -> str:
    """"person … verb of telling" of one language in one question of the ask (`_PERSON_AND_TELLING`), or ""."""
    words = plain_words(ask)
    if _PERSON_AND_TELLING.firsts.isdisjoint(words):  # most asks stop here: one set test
        return ""
    for sentence in sentences(ask, ASKED_SENTENCE_END):
        words = plain_words(sentence)
        if not _A_QUESTION.search(sentence.strip()) or len(words) > LONGEST_TELLING_ASKED:
            continue
        found = pair_in(_PERSON_AND_TELLING, words)
        if found is not None:
            return f"{found[1]} … {found[0]}"
    return ""


def personal_ask(ask: str) -> str:
    """The phrase by which a (normalised) ask asks how to feel or how to act toward a person, or ""."""
    if len(ask) > LONGEST_PERSONAL_ASK:
        return ""
    match = first_match(_PERSONAL_PATTERNS, ask)
    if match is None and holds_cjk(ask):
        match = _CJK_PERSONAL.search(ask)
    return match.group().strip() if match else _telling_asked(ask)
