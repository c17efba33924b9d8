"""Asks for the model's own opinion: "do you think AI will replace data analysts?", "what do you think
about 4-day work weeks for engineering teams?", "honestly what's the point of code review if everyone
just clicks approve", "who would win, a senior dev with vim or a junior with copilot".

They name a skill's subject (analytics, teams, code review) but ask what the model thinks, which it
says by itself; no skill's instructions help. The router routes nothing for such an ask (it still
ranks the skills, for `list_skills`), unless the message asks for work too or writes a skill's full
name. An opinion asked of the user's own work is a review, and routes: "what do you think of our
schema?", "what's your take on this API design: …" hold my, our, this or a pasted piece and are no
opinion asks here.

The same holds in the other languages the router reads, where the opener may stand anywhere in
the sentence ("was hältst du von Rust?", "o que vc acha do Copilot?", "sence yapay zeka
programcıların işini elinden alır mı?", "AI 코딩 도구에 대해 어떻게 생각해?", "你觉得低代码有前途吗"),
and the user's own work is said with the language's my, our, this and I. Beyond the phrases, a short
question that addresses the model and holds a verb of opinion of the same language asks its view in
any word order ("а ты что больше любишь, вим или емакс?").

Pure and deterministic, on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import ASKED_SENTENCE_END, holds_cjk, plain_words, sentences
from proxy.core.routing.triggered_patterns import PatternTable, first_match, holds_a_trigger, triggered
from proxy.core.routing.word_pairs import pair_in, word_pairs

LONGEST_OPINION_ASK = 300  # characters; a longer ask carries a task of its own

_OPINION = re.compile(
    r"^(?:honestly |genuinely |seriously |real talk:? |ok |so )?(?:"
    r"do (?:you|u|ya) (?:think|believe|reckon|feel)|what do (?:you|u) (?:think|make) (?:about|of)|"
    r"how do you feel about|"
    r"what(?:'s| is) your (?:take|opinion|view|hot take|favou?rite)|what(?:'s| is) the point of|"
    r"is it (?:worth|overrated|overhyped|just hype)|are [\w ]{1,30} (?:overrated|overhyped|worth it)|"
    r"who would win|which is (?:more fun|cooler|better to work with)|would you rather|"
    r"how common is it|is (?:that|this|it) (?:common|a red flag|a green flag|a good sign|a bad sign)|"
    r"do you ever|have you ever)\b"
)
# Other languages: the opener anywhere in the sentence (Turkish, Korean, Japanese and Chinese put it late).
_FOREIGN_OPINION: PatternTable = (
    (("hältst", "haltet", "denkst", "glaubst", "meinst", "meinung", "lieber", "bevorzugst"),
     r"\b(?:was (?:hältst|haltet|denkst) du (?:von|über)|glaubst du|denkst du|meinst du|was ist deine meinung|"
     r"was (?:ist )?dir lieber|was bevorzugst du|deiner meinung nach)\b"),
    (("opinas", "piensas", "parece", "crees", "opinión", "prefieres", "pensás", "creés"),
     r"\b(?:(?:qué|que) (?:opinas|piensas|te parece)|crees que|cuál es tu opinión|qué prefieres|en tu opinión|"
     r"(?:vos )?(?:pensás|creés) que|(?:qué|que) pensás)\b"),
    (("penses", "pense", "crois", "avis", "préfères", "préférez", "selon"),
     r"\b(?:(?:qu'est-ce que tu|que|qu') ?penses?(?:-tu)? (?:de|du|des)|penses-tu|tu penses que|crois-tu|"
     r"tu crois que|quel est ton avis|tu préfères|vous préférez|à ton avis|selon toi)\b"),
    (("acha", "opinião", "opiniao", "prefere"),
     r"\b(?:(?:o que|qual|quem) (?:você|voce|vc|tu) acha|(?:você|voce|vc) acha que|qual (?:é )?(?:a )?sua opini[aã]o|"
     r"(?:você|voce|vc) prefere|na (?:sua|tua) opini[aã]o)\b"),
    (("pensi", "secondo", "credi", "opinione", "preferisci", "parere"),
     r"\b(?:(?:cosa|che) ne pensi|cosa pensi (?:di|del|della|dei|delle)|secondo te|pensi che|credi che|"
     r"qual è la tua opinione|preferisci|a tuo parere)\b"),
    (("думаешь", "думаете", "считаешь", "считаете", "мнение", "нравится", "твоему", "взгляд", "лучше"),
     r"\b(?:что (?:ты |вы )?(?:думаешь|думаете) (?:о|об|про)|как (?:ты |вы )?(?:думаешь|думаете|считаешь|считаете)|"
     r"(?:твоё|твое|ваше) мнение|(?:тебе|вам)(?: самому| самой| лично)?(?: что)? больше нравится|что (?:тебе|"
     r"вам) нравится|по-твоему|по твоему мнению|"
     r"на твой взгляд|что лучше)\b"),
    (("myślisz", "sądzisz", "uważasz", "opinia", "zdaniem", "wolisz"),
     r"\b(?:co (?:myślisz|sądzisz) o|jak myślisz|czy uważasz|twoja opinia|twoim zdaniem|co wolisz|wolisz)\b"),
    (("düşünüyorsun", "dusunuyorsun", "sence", "sizce", "fikrin", "tercih", "hangisi", "hangisini"),
     r"\b(?:ne düşünüyorsun|ne dusunuyorsun|sence|sizce|fikrin ne|hangisini tercih|tercih eder misin|"
     r"hangisi daha iyi)\b"),
    (("menurutmu", "menurut", "pendapat", "pendapatmu", "suka", "pilih", "mending", "bagusan"),
     r"\b(?:menurutmu|menurut (?:kamu|anda|lo|lu|loe)|apa pendapat(?:mu| kamu| anda)?|"
     r"bagaimana pendapat(?:mu| kamu| anda)?|lebih suka (?:yang )?mana|pilih mana|mending mana|bagusan mana)\b"),
    (("nghĩ", "nghi", "theo", "kiến", "thích", "nào", "nao", "thấy", "thay"),
     r"\b(?:(?:bạn|ban) (?:thấy|thay) sao|(?:bạn|ban) (?:nghĩ|nghi) (?:sao|gì|gi)|(?:bạn|ban) có nghĩ|theo (?:bạn|ban)|"
     r"theo gu (?:của )?(?:bạn|ban)|"
     r"ý kiến của (?:bạn|ban)|"
     r"(?:bạn|ban) thích (?:cái|cai) nào|(?:cái|cai) nào (?:tốt|tot|hay) hơn)\b"),
    (("생각", "나아", "어느 게", "어떤 게"),
     r"생각이 궁금|어떻게 생각|네 생각은|당신 생각은|뭐가 더 나아|어느 게 더|어떤 게 더 (?:좋|나)"),
    (("思", "どっち", "どちら"), r"どう思|どっちが(?:好き|いい)|どちらが(?:好き|いい)"),
    (("觉得", "覺得", "认为", "認為", "怎么看", "怎麼看", "喜欢", "喜歡", "更好"),
     r"你觉得|你覺得|你认为|你認為|你怎么看|你怎麼看|怎么看待|怎麼看待|你更喜欢|你更喜歡|哪个更好|哪個更好"),
    # whether a practice is normal, asked of nobody's own work ("É normal o tech lead aprovar PR sem nem abrir o
    # código?", "is it normal for a lead to approve PRs unread?"); of the user's own system it is help
    (("normal", "normale"),
     r"^(?:is it normal (?:for|that) |é normal (?:o |a |os |as |que )|es normal (?:que |el |la )|"
     r"c'est normal (?:que|qu')|ist es normal,? dass |è normale che )"),
    # the model asked to say honestly what it thinks ("Скажи честно, … это всегда кринж?", "be honest, is …");
    # not the speaker's own "honestly" (说实话, 솔직히), which prefaces anything
    (("honestly", "honest", "ehrlich", "franchement", "sinceramente", "verdad", "sério", "serio", "честно",
      "szczerze", "dürüst", "jujur", "thật"),
     r"\b(?:tell me honestly|be honest|sag(?: mal)? ehrlich|sei ehrlich|dis(?:-moi)? franchement|sois honnête|"
     r"d[ií]me (?:la verdad|sinceramente)|s[eé] sincer[oa]|fala s[ée]rio|(?:me )?diz sinceramente|"
     r"dimmi (?:sinceramente|la verità)|sii sincer[oa]|скажи честно|только честно|powiedz szczerze|"
     r"dürüst (?:ol|söyle)|jujur (?:aja|deh|ya)|nói thật (?:đi|nha|nhé))\b"),
    # where the model stands ("… where do you land?", "genuinely curious about your view")
    (("land", "stand", "view", "take", "opinion", "thoughts"),
     r"\bwhere do you (?:land|stand)(?: on (?:this|that|it))?\??$|"
     r"\b(?:curious (?:about|to hear)|interested in) your (?:view|take|opinion|thoughts)\b"),
    # an agreement asked for ("Kamu setuju ga?", "tu es d'accord ?", "do you agree?")
    (("agree", "acuerdo", "concorda", "concordas", "accord", "zu", "accordo", "согласен", "согласна", "zgadzasz",
      "katılıyor", "katiliyor", "setuju", "đồng"),
     r"\b(?:do you agree|(?:est[aá]s|estás) de acuerdo|(?:você |voce |vc )?concorda(?:s)?\?|(?:tu es|t'es) d'accord|"
     r"stimmst du (?:mir )?zu|sei d'accordo|(?:ты )?согласн[аы]?\?|zgadzasz się|katılıyor musun|katiliyor musun|"
     r"(?:kamu|lo|lu) setuju(?: (?:ga|gak|nggak|enggak|tidak))?|(?:bạn|ban) (?:có )?đồng ý (?:không|ko|k))"),
    # whether the model believes a claim ("小红书上那些月入十万的帖子你信吗？", "do you buy it?")
    (("信吗", "信嗎", "相信吗", "相信嗎", "信不信", "信じる", "信じます", "믿어", "믿으세요", "믿나요"),
     r"你信吗|你信嗎|你相信吗|你相信嗎|你信不信|信じ(?:る|ます(?:か)?)[？?]|믿어\?|믿으세요|믿나요"),
    (("buy", "believe", "crees", "acredita", "crois", "credi", "веришь", "верите", "wierzysz", "inanıyor", "inanır",
      "percaya", "tin"),  # not "tin không": "có thông tin không" asks for information
     r"\b(?:do you (?:buy|believe) (?:it|that|this)|you believe (?:it|that|this)(?=\?)|(?:tú )?te lo crees|"
     r"(?:você|voce|vc) acredita|acredita nisso|tu y crois|ci credi|(?:ты )?веришь|вы верите|wierzysz w|"
     r"inan[ıi]yor musun|inan[ıi]r m[ıi]s[ıi]n|(?:kamu|lo|lu) percaya|percaya (?:gak|nggak|ga|enggak)|"
     r"(?:bạn|ban) có tin (?:là|rằng|không|vào|nổi))\b"),
    # whether one thing will replace or beat another ("Czy Svelte ma szansę wygryźć Reacta?", "AI 때문에 신입
    #채용 없어질까요?"), and an agreement asked for ("Next.js se está volviendo demasiado complicado, ¿no crees?")
    (("ersetzen", "ablösen", "reemplazará", "reemplazar", "substituir", "remplacer", "remplacera", "sostituirà",
      "rimpiazzerà", "заменит", "вытеснит", "wygryźć", "zastąpi", "yerini", "gantiin", "menggantikan", "ngalahin",
      "thế", "crees", "parece", "pas", "trouves", "trovi", "acha", "wahr", "правда", "так", "prawda", "değil",
      "kan", "phải", "prediksi", "prediksimu", "thắng"),
     r"\b(?:wird [\w .+#-]{1,30} (?:ersetzen|ablösen)|(?:va a |vai |va )?(?:reemplazar|reemplazará|substituir|"
     r"remplacer|remplacera|sostituirà|rimpiazzerà)|заменит|вытеснит|wygryźć|zastąpi|yerini (?:alacak|alır) mı|"
     r"(?:bakal )?(?:gantiin|menggantikan|ngalahin)|thay thế được|sẽ thắng|(?:¿)?no crees|no te parece|n'est-ce pas|"
     r"tu trouves pas|non trovi|(?:você |vc )?não acha|nicht wahr|не так ли|prawda\?|değil mi|kan\?|phải không|"
     r"prediksi(?:mu| lo| lu| kamu))"),
    (("대체", "없어질", "置き換", "取って代わ", "取代", "淘汰"),
     r"대체(?:할|될)까|없어질까|置き換わる|取って代わ|取代|淘汰"),
    # "do you think (that) …" said with the verb last: "꼭 필요하다고 생각하세요?", "必要だと思いますか？", and the
    # side the model takes: "sen hangi taraftasın", "sen olsan hangisini seçerdin"
    (("생각하세요", "생각해", "생각하니", "생각하나요", "생각해요", "생각하십니까", "思いますか", "思う", "思います"),
     r"(?:다고|라고|다는 게|는 게|할까|일까) ?생각(?:하세요|해|하니|하나요|해요|하십니까)|"
     r"(?:と|って)思(?:いますか|う[?？]|います[?？])"),
    (("봐", "봐요", "보세요", "보시나요", "派"),
     r"(?:다고|라고) (?:봐(?:요)?|보세요|보시나요)[?？]|(?:どっち|どちら)派"),
    (("taraftasın", "taraftasin", "dersin", "olsan"), r"\b(?:hangi taraftas[ıi]n|sen ne dersin|sen olsan)\b"),
    # whether one thing is better than another, asked of nobody's own work ("is Rust better than Go?",
    # "¿Rust es mejor que Go?", "czy Rust jest lepszy od Go?", "Rust比Go好吗？")
    (("better", "worse", "mejor", "peor", "meilleur", "meilleure", "mieux", "pire", "besser", "schlechter", "meglio",
      "migliore", "peggio", "лучше", "хуже", "lepszy", "lepsza", "lepsze", "gorszy", "iyi", "kötü", "bagus", "baik",
      "hơn", "melhor", "pior"),
     r"^(?:is|are) [\w .+#-]{1,30}? (?:better|worse) than [\w .+#-]{1,30}\?|"
     r"\b(?:es|son) (?:mejor|peor)(?:es)? que\b|\b(?:est-il|est-elle|est|sont) (?:meilleure?s?|mieux|pire) que\b|"
     r"\b(?:ist|sind) [\w .+#-]{1,30}? (?:besser|schlechter) als\b|\b(?:è|e) (?:meglio|migliore|peggio) di\b|"
     r"(?:лучше|хуже),? чем\b|\b(?:jest )?(?:lepsz|gorsz)[yae] (?:od|niż)\b|\bdaha (?:iyi|kötü) m[ıi]\b|"
     r"\bdaha m[ıi] (?:iyi|kötü)\b|\blebih (?:bagus|baik|jelek) (?:dari|daripada)\b|\btốt hơn\b.{0,30}không\b|"
     r"\b(?:é|são) (?:melhor|pior)(?:es)? (?:que|do que)\b"),
    (("比", "より", "보다"), r"比.{1,20}(?:好|强|強|快)(?:吗|嗎)|より(?:良い|いい|優れて)|보다 (?:나아|좋아|낫|나은)"),
    (("怎么看", "怎麼看"), r"你对.{1,20}怎么看|你對.{1,20}怎麼看"),
    # whether a technology has a future or is dead, and the model's prediction: "does Scala still have a
    # future?", "czy Scala ma jeszcze przyszłość?", "Flutter có tương lai không?", "is jQuery dead?",
    # "what's your prediction?"; a future the user's own (our product's) is a plan, not asked here
    (("future", "futuro", "zukunft", "avenir", "будущее", "будущего", "przyszłość", "przyszlosc", "geleceği",
      "gelecegi", "masa", "lai", "전망", "미래"),
     r"\b(?:(?:does|do) [\w .+#-]{1,30} (?:still )?have (?:a|any) future|(?:is|are) [\w .+#-]{1,30} the future\b|"
     r"(?:what(?:'s| is) the )?future of [\w .+#-]{1,30}\?|(?:tiene|tienen|tem|têm) (?:algún |algum )?futuro|"
     r"(?:hat|haben) [\w .+#-]{1,30} (?:noch )?(?:eine )?zukunft|(?:a|ont)(?:-t-il|-t-elle|-ils)? (?:encore )?"
     r"(?:un |de l')avenir|(?:ha|hanno) (?:ancora )?(?:un )?futuro|есть ли (?:у [\w .+#-]{1,30} )?будущее|"
     r"у [\w .+#-]{1,30} (?:есть )?будущее|(?:ma|mają) (?:jeszcze )?(?:jakąś |jakas )?przysz[łl]o[śs][ćc]|"
     r"gelece[ğg]i (?:var|yok) m[ıu]|(?:punya|ada) masa depan|(?:có )?tương lai (?:không|ko|hơn)|"
     r"(?:cái|cai) nào (?:có )?tương lai)|미래가 (?:있|밝)|전망(?:이)? (?:어때|있|좋)"),
    # (a server that is dead is down: "is the server dead?" and "прод умер?" report a problem, so only a
    # named thing, in English, and the idioms for a technology gone out of fashion)
    (("dead", "dying", "obsolete"),
     r"\bis (?!the |my |our |it |this |that |your |a )[\w .+#-]{1,30} (?:dead|dying|obsolete)(?: yet| now|"
     r" already)?\?"),
    (("オワコン", "过时", "過時", "한물"), r"オワコン|过时了吗|過時了嗎|한물 ?갔"),
    (("prediction", "guess", "bet", "prognose", "vorhersage", "predicción", "apuesta", "pronostic", "prédiction",
      "previsão", "aposta", "previsione", "прогноз", "prognoza", "tahminin", "tahminiz", "đoán"),
     r"\b(?:what(?:'s| is|s) your (?:prediction|guess|bet)|(?:deine|ihre) (?:prognose|vorhersage)|"
     r"(?:tu|su) (?:predicción|apuesta)|(?:ton|votre) (?:pronostic|prédiction)|(?:sua|tua) (?:previsão|aposta)|"
     r"la tua previsione|(?:твой|ваш) прогноз|(?:twoja|pana|pani) prognoza|(?:senin |sizin )?tahmin(?:in|iniz) ne|"
     r"(?:bạn|ban) đoán)\b"),
    (("예상", "예측", "予想", "预测", "預測", "你猜"),
     r"(?:네|당신) (?:예상|예측)은|あなたの予想|你的预测|你的預測|你猜"),
    # questions about the model itself: "are you claude or chatgpt under the hood", "what's your knowledge
    # cutoff?", "do you mind writing marketing copy all day or is that boring for an AI"
    (("claude", "chatgpt", "gpt", "gemini", "llama", "ai", "bot", "robot", "human", "conscious", "sentient", "alive"),
     r"\bare you (?:claude|chatgpt|gpt|gemini|llama|an ai|a bot|a robot|human|conscious|sentient|alive)\b"),
    (("cutoff", "training", "creator", "creators"),
     r"\byour (?:knowledge cutoff|training data|training cutoff|creators?)\b"),
    (("model", "made", "trained", "built"), r"\bwhat model are you\b|\bwho (?:made|built|trained) you\b"),
    # how the model works, and whether it keeps what it is told
    (("work", "fonctionnes", "funktionierst", "funcionas", "funciona", "funzioni", "работаешь", "działasz",
      "çalışıyorsun", "kerjanya", "hoạt", "save", "store", "keep", "guardas", "guarda", "salva", "enregistres",
      "speicherst", "salvi", "сохраняешь", "zapisujesz", "kaydediyor", "nyimpen", "menyimpan", "lưu"),
     r"\b(?:how do you (?:work|actually work)|comment tu fonctionnes|wie funktionierst du|c[oó]mo funcionas|"
     r"como (?:você|voce|vc) funciona|come funzioni|как ты работаешь|jak (?:ty )?działasz|nasıl çalışıyorsun|"
     r"(?:kamu|lo) (?:kerjanya|bekerja) (?:gimana|bagaimana)|(?:bạn|ban) hoạt động (?:thế nào|như thế nào)|"
     r"do you (?:save|store|keep|log) (?:our|my|the) (?:chats|conversations|messages)|guardas (?:nuestras|las) "
     r"conversaciones|(?:você |vc )?(?:salva|guarda) (?:nossas|as) conversas|tu enregistres nos conversations|"
     r"speicherst du unsere|salvi le (?:nostre )?conversazioni|ты сохраняешь|zapisujesz nasze|"
     r"konuşmalarımızı kaydediyor|(?:kamu|lo) (?:nyimpen|menyimpan) (?:chat|obrolan)|(?:bạn|ban) có lưu)\b"),
    (("怎么工作", "怎麼工作", "保存", "動いて", "작동", "저장"),
     r"你是怎么工作的|你是怎麼工作的|你会保存(?:我们的)?(?:对话|聊天记录)|會保存(?:我們的)?(?:對話|聊天紀錄)|"
     r"どうやって動いて|会話を保存して|어떻게 작동|대화 내용 저장"),
    (("mind", "enjoy", "tired", "bored"),
     r"\b(?:do|would) you (?:mind|enjoy|like|ever get|get) (?:tired|bored|doing|writing|answering|being|it when)\b"),
    (("ai",), r"\b(?:boring|fun|hard|tiring) for an ai\b|\bas an ai do you\b"),
)
# Whether the model remembers or learns between chats ("… or do you start from zero every chat?"): a
# question about the model, though it says "our chats" or "we talked about".
_MODEL_MEMORY = triggered((
    (("zero", "scratch", "learn", "remember", "cero", "zéro", "null", "нуля", "zera", "sıfırdan", "nol", "đầu",
      "lembra", "aprende", "acuerdas", "aprendes", "souviens", "apprends", "erinnerst", "lernst", "ricordi", "impari",
      "помнишь", "учишься", "pamiętasz", "uczysz", "hatırlıyor", "öğreniyor", "ingat", "belajar", "nhớ", "gardes"),
     r"\b(?:start (?:from|at) (?:zero|scratch) (?:every|each|with every)|"
     r"do you (?:learn|remember anything) from (?:our|my|these) (?:chats|conversations)|"
     r"(?:cada|toda) conversa(?:ção)? começa do zero|começa do zero pra (?:você|voce|vc)|"
     r"(?:você|voce|vc) (?:lembra|aprende) (?:do que|com as|das|com) (?:minhas |nossas )?(?:a gente|conversas|nossas)|"
     r"te acuerdas de lo que hablamos|(?:cada|toda) conversaci[oó]n empieza (?:de|desde) cero|"
     r"aprendes de (?:nuestras|las) conversaciones|tu te souviens de ce qu'on|repart de z[ée]ro|"
     r"tu apprends de nos conversations|erinnerst du dich an unser\w* (?:gespräch|chat|unterhaltung)|"
     r"jedes mal (?:bei|von) null|lernst du aus unseren|ti ricordi (?:di )?(?:quello che|cosa) ci siamo dett[io]|"
     r"riparte da zero|impari dalle nostre conversazioni|(?:ты )?помнишь,? (?:наш|что мы)|с нуля каждый|"
     r"учишься на наших|pamiętasz (?:naszą rozmowę|o czym rozmawiali)|od zera za każdym|uczysz się z naszych|"
     r"konuştuklarımızı hatırlıyor|sıfırdan mı başlıyorsun|(?:kamu|lo|lu) ingat (?:obrolan|percakapan|chat) kita|"
     r"mulai dari nol lagi|belajar dari (?:obrolan|chat) kita|(?:bạn|ban) có nhớ (?:cuộc trò chuyện|những gì mình)|"
     r"bắt đầu lại từ đầu mỗi|tu gardes ce que (?:je|j'|on))\b"),
    (("记得", "記得", "从零", "從零", "学习", "學習", "覚えて", "リセット", "기억", "처음부터"),
     r"你还记得我们|你還記得我們|每次(?:对话|對話|聊天)都(?:从零|從零)|你会记住我们的|你會記住我們的|"
     r"从我们的对话中学习|前の会話(?:を|って)覚えて|毎回リセット|우리 (?:지난|어제) 대화 기억|매번 처음부터"),
))
# Asked out of curiosity, or about what everyone talks about: a general question, unless about the
# user's own system ("just curious, how would you index our orders table?").
_CURIOSITY: PatternTable = (
    (("curious", "curiosity", "curiosité", "curiosidad", "curiosidade", "neugier", "curiosità", "любопытства",
      "ciekawości", "merak", "penasaran", "tò", "hỏi"),
     r"\b(?:just curious|purely out of curiosity|out of curiosity|par curiosit[ée]|por curiosidad|por curiosidade|"
     r"aus neugier|per curiosit[àa]|из любопытства|z ciekawości|merak ettim|penasaran aja|chỉ tò mò|hỏi cho vui)\b"),
    (("everyone", "everybody"),
     r"\bwhy (?:is|are|does|do) every(?:one|body) (?:talk(?:ing)?|hyp(?:e|ing)|obsess(?:ed|ing)?) "
     r"(?:about|over|with)\b"),
    (("tout", "alle", "todo", "tutti", "все", "wszyscy", "semua", "ai"),
     r"\b(?:pourquoi tout le monde parle|warum reden alle|por qu[ée] todo el mundo habla|por que todo mundo fala|"
     r"perch[ée] tutti parlano|почему все говорят|dlaczego wszyscy mówią|kenapa semua orang ngomongin|"
     r"tại sao ai cũng nói)\b"),
    (("好奇", "気になった", "궁금", "大家", "みんな"),
     r"只是好奇|好奇问一下|好奇問一下|気になっただけ|그냥 궁금|为什么大家都在(?:说|聊|谈)|なんでみんな"),
)
_FOREIGN_OPINION_PATTERNS = triggered(_FOREIGN_OPINION)
_CURIOSITY_PATTERNS = triggered(_CURIOSITY)
_THEIR_SYSTEM = re.compile(r"\b(?:my|our|this|these)\b")
# The ask is about the user's own work: then an opinion is a review ("what do you think of our schema?").
_THEIR_OWN = re.compile(r"\b(?:i|we|us|my|our|this|these|attached|below|here's|heres)\b|[:\n`{]")
_FOREIGN_OWN = re.compile(
    r"\b(?:ich|wir|mein\w*|unser\w*|dies\w*|yo|mi|mis|nuestr[oa]s?|est[eoa]s?|je|j'|nous|mon|mes|notre|nos|"
    r"cette|eu|meu|minha|nosso|nossa|ess[ea]|isso|io|mio|mia|miei|nostr[oaie]|quest[oaie]|"
    r"я|мы|мой|моя|моё|мое|мои|наш\w*|этот|эта|эти|этом|этой|этих|этим|этого|ja|my|mój|moja|moje|nasz\w*|ten|ta|"
    r"ben|biz|benim|bizim|bu|şu|saya|aku|gue|gw|kami|kita|ini|tôi|mình|minh|chúng tôi|này|nay)\b"
    r"|(?:^|\s)(?:내|제|이) |우리|저희|私|僕|俺|うち|この|我|这个|這個|这|這"
)


# A choice between two things asked in one short question, about nobody's own work: "vim or emacs?",
# "iphone ou android pra quem é dev?", "Kotlin или Flutter?", "startup atau BUMN?". A choice for the
# user's own system ("Postgres or Mongo for our chat history?") holds my, our, this and is a request.
_CHOICE = re.compile(r"^[^.!?\n]{1,80}\b(?:or|ou|oder|или|czy|atau|hay|hoặc|veya|yoksa)\b[^.!?\n]{1,60}\?$")
# Which one to use is a decision about the user's work ("should we use Redux or Zustand?").
_SHOULD = re.compile(r"\b(?:should|use|sollte|sollten|nehmen|debería|deberíamos|usar|devrait|devrais|utiliser|"
                     r"deveria|devo|usar|dovrei|usare|стоит|использовать|powinienem|powinniśmy|użyć|uzyc|"
                     r"kullanmalı\w*|kullanayım|sebaiknya|pakai|nên|dùng|dung)\b")
LONGEST_CHOICE_WORDS = 14


# The model asked what it thinks, likes or prefers, the two words in any order and at any distance in
# one question ("bạn thấy cái nào có tương lai hơn?", "а ты что больше любишь, вим или емакс?", "sen
# hangisini daha çok seviyorsun?", "너는 뭐가 더 좋아?"): a person addressed and a verb of opinion, in
# the same language. Words only, so the shape holds in word orders no phrase above lists.
_YOU_AND_A_VIEW = word_pairs((
    ("you u ya", "think reckon prefer believe rate"),
    ("du dir dich", "findest denkst glaubst meinst magst bevorzugst"),
    ("tu toi vous", "penses pensez trouves trouvez préfères préférez crois croyez"),
    ("tú tu vos usted", "piensas pensás crees creés prefieres preferís opinas opinás"),
    ("você voce vc tu", "acha achas pensa prefere preferes curte"),
    ("tu te ti", "pensi trovi preferisci credi"),
    ("ты тебе тебя вы вам вас",
     "думаешь думаете считаешь считаете нравится нравятся любишь любите предпочитаешь предпочитаете"),
    ("ty tobie ci", "myślisz sądzisz uważasz wolisz podoba lubisz"),
    ("sen sence siz sizce", "düşünüyorsun düşünürsün seviyorsun seversin beğeniyorsun"),
    ("kamu lo lu anda", "pikir rasa suka pilih prefer"),
    ("bạn ban cậu", "thấy nghĩ thích chọn"),
))
# (너 with its particle: 너무, "too", starts with the same syllable)
_YOU_AND_A_VIEW_CJK = re.compile(r"(?:너는|넌|너도|너라면|네가|당신)[^?？]{0,30}(?:생각|좋아|고르|골라)|"
                                 r"(?:あなた|君|きみ)[^?？]{0,30}(?:思|好き|選)|(?:你|您)[^?？]{0,20}(?:觉得|覺得|认为|認為|喜欢|喜歡)")
_ASKED = re.compile(r"[?？]\s*$|\b(?:không|ko|khong|chưa|nhỉ|ta)\s*$")
LONGEST_VIEW_ASKED = 25  # words


def _view_asked(sentence: str, words: frozenset[str]) -> str:
    """"you … think" asked in one question of one language (`_YOU_AND_A_VIEW`), or ""."""
    if not _ASKED.search(sentence) or len(words) > LONGEST_VIEW_ASKED:
        return ""
    found = pair_in(_YOU_AND_A_VIEW, words)
    if found is not None:
        return f"{found[0]} … {found[1]}"
    match = _YOU_AND_A_VIEW_CJK.search(sentence)
    return match.group() if match else ""


def opinion_ask(ask: str) -> str:
    """The opener by which a (normalised) ask asks the model's own opinion, or ""."""
    if len(ask) > LONGEST_OPINION_ASK:
        return ""
    foreign = holds_a_trigger(_FOREIGN_OPINION_PATTERNS, ask)  # most asks hold none: one set test
    for sentence in sentences(ask.strip(), ASKED_SENTENCE_END):
        match = _OPINION.match(sentence)
        if match is not None and _THEIR_OWN.search(sentence) is None:
            return match.group().strip()
        match = first_match(_FOREIGN_OPINION_PATTERNS, sentence) if foreign else None
        if match is not None and _FOREIGN_OWN.search(sentence) is None and _THEIR_OWN.search(sentence) is None:
            return match.group().strip()
        words = plain_words(sentence)
        if not _YOU_AND_A_VIEW.firsts.isdisjoint(words) or holds_cjk(sentence):
            view = _view_asked(sentence.strip(), words)
            if view and _FOREIGN_OWN.search(sentence) is None and _THEIR_OWN.search(sentence) is None:
                return view
    memory = first_match(_MODEL_MEMORY, ask)
    if memory is not None:
        return memory.group().strip()
    curious = first_match(_CURIOSITY_PATTERNS, ask)
    if curious is not None and _THEIR_SYSTEM.search(ask) is None and _FOREIGN_OWN.search(ask) is None:
        return curious.group().strip()
    return ""


def choice_ask(message: str) -> str:
    """"a or b?" when a whole (normalised) message is one short question between two things, about
    nobody's own work; else "". A choice asked after a scene ("I'm adding Google login to our Express
    app. JWT in a cookie or server sessions?") is about the scene's system, and is not read here."""
    choice = message.strip()
    if (_CHOICE.match(choice) and len(choice.split()) <= LONGEST_CHOICE_WORDS and _FOREIGN_OWN.search(choice) is None
            and _THEIR_OWN.search(choice) is None and _SHOULD.search(choice) is None):
        return "a or b?"
    return ""
