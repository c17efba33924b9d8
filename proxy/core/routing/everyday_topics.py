"""Words of everyday life: food, pets, family, celebrations, going out, home, cars, career moves
(a raise, unpaid leave, quitting), health (sleep, eye strain, a stiff neck), feelings,
money of one's own (a pension, stock options), hobbies, travel, relationships, gifts, opinions
("overrated", "is it just me") and writing for fun (a poem, a bedtime story); and the words of a
message that only shares news ("no question, just proud").

A message that asks about one of them ("cake ideas for 12 people", "a good name for a puppy",
"how do I calm my nerves?") asks for something a model answers by itself, even when it
mentions a tool or names a word a skill also uses ("ideas", "board", "podcast"). Such an ask
needs strong evidence before a skill is routed for it: the router scales a match below its bar
(`EVERYDAY_MIN_SCORE`) under `medium` and says which everyday word it saw. A strong match still
routes ("write the birthday email sequence for our bakery's loyalty program" is a task for an
email skill).

The words are general vocabulary of everyday life in the languages the router reads, chosen
to rarely name a task of software, data, science, marketing or writing work (so not "book",
"game", "show", "partner", "date", "poetry", "sleep", "raise", "interview", "parents", "child",
"boss", "scared" or "cookie", which do: a boss is often who a report is for, a cookie holds a
session). An ambiguous word is listed only inside a phrase: "fall asleep", "pay raise", "job
interview". Matched as whole words of the ask (CJK ones as substrings, so a CJK word is left out
when it also sits inside a word of work: デート in アップデート, 이사 in 이사회, 生日 in 出生日期),
case folded.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proxy.core.routing.tokens import holds_cjk, plain_words

_LATIN_WORDS = """
lunch lunches dinner dinners breakfast brunch recipe recipes cake cakes pizza baking
cook cooking cocktail cocktails restaurant restaurants snack snacks meal meals picnic barbecue bbq dessert desserts
dog dogs puppy puppies kitten kittens pets
grandma grandpa granny grandmother grandfather mom mum dad girlfriend boyfriend wife husband
anniversary wedding birthday birthdays honeymoon
vacation vacations hike hiking camping beach sightseeing
movie movies film films novel novels playlist song songs cinema
hobby hobbies gym workout workouts stretches stretching yoga marathon nap
nerves anxiety anxious burnout insomnia therapist meditation
gift gifts icebreaker icebreakers weekend weekends weather sunscreen haircut
coffee coffees tea beer wine drink drinks mortgage retirement pension salary coworker coworkers
landlord apartment heater bedroom kitchen couch furniture houseplant houseplants movers
car cars dealership career resign resignation sabbatical jealous proud nervous overwhelmed
joke jokes limerick bedtime trivia headache backache posture dentist
commute commuting exam exams celebrate celebrating celebration cry crying tears exhausted bored lonely
mittagessen abendessen frühstück rezept rezepte kuchen hund hunde katze katzen welpe geburtstag hochzeit urlaub
wandern geschenk geschenke oma opa kino wochenende wetter
almuerzo cena desayuno receta recetas pastel tarta perro perros gato gatos cachorro cumpleaños boda vacaciones
regalo regalos abuela abuelo restaurante cine película pelicula clima
déjeuner dîner diner gâteau gateau chien chiens chiot anniversaire mariage vacances
cadeau cadeaux mamie papi cinéma météo meteo week-end
almoço almoco jantar receita receitas bolo cachorro gato gatos aniversário aniversario casamento férias ferias
avó avô filme fim-de-semana
pranzo cena ricetta ricette torta cane cani gatto gatti cucciolo compleanno matrimonio vacanze regalo regali nonna
nonno ristorante weekend
обед ужин завтрак рецепт рецепты торт собака собаки кошка кошки щенок свадьба отпуск подарок подарки
бабушка дедушка ресторан кафе кино фильм сходить погулять отдохнуть выходные погода
obiad kolacja śniadanie ciasto pies psy kot koty szczeniak urodziny ślub wakacje urlop prezent prezenty babcia
dziadek restauracja kino weekend pogoda
köpek kedi yavru düğün tatil hediye babaanne anneanne restoran sinema
resep kue anjing kucing pernikahan liburan hadiah nenek kakek restoran bioskop cuti cuaca
chó mèo quà
sister sisters brother brothers daughter daughters kid kids toddler toddlers baby babies mother father niece nephew
cousin aunt uncle grandparents sibling siblings fiance fiancee fiancé fiancée
asleep neck shoulders wrist knees diet calories fever flu allergies pregnant pregnancy vitamins caffeine jogging
swimming stressed mentally dizzy
colleague colleagues layoff layoffs bootcamp
guitar piano violin drums knitting gardening fishing chess woodworking carpenter sourdough football soccer basketball
tennis golf surfing skiing lego anime manga crossword
poem poems lyrics riddle riddles pun puns
layover passport itinerary relocating relocate
luggage suitcase jacket coat clothes outfit sweater raincoat
koffer jacke mantel kleidung maleta chaqueta abrigo ropa valise manteau vêtements casaco roupa roupas
valigia giacca cappotto vestiti чемодан куртку куртка пальто одежду одежда walizka walizkę kurtka kurtkę płaszcz
ubrania valiz ceket kıyafet koper jaket baju
sad embarrassed ashamed guilty heartbroken unmotivated procrastinate procrastinating procrastination
loneliness homesick
overrated overhyped
friendship breakup divorce dating marriage roommate roommates
cats parrot hamster groceries grocery plants succulents gardening garden
schwester bruder tochter sohn kinder mutter vater eltern freundin rückenschmerzen kopfschmerzen müde gehalt
gehaltserhöhung kündigen kündigung reise reisen gitarre klavier fußball gedicht gedichte witz witze traurig einsam
nervös cerâmica cerámica céramique keramik ceramica crevé crevée desestressar
hermana hermano hija hijo hijos niños bebé madre padre padres novia novio dormir cansado cansada sueldo salario
renunciar despido viaje viajar guitarra fútbol novela poema poemas chiste chistes ansiedad triste nervioso
procrastinar
sœur soeur frère frere fille fils enfants bébé mère père copine copain fatigué fatiguée épuisé épuisée salaire
démissionner
licenciement voyage voyager guitare poème poèmes blague blagues anxiété stressé
irmã irmão filha filho filhos crianças bebê mãe pai namorada namorado salário demissão demitido viagem
violão futebol piada piadas ansiedade ansioso
sorella fratello figlia figlio figli bambini bambino mamma papà fidanzata fidanzato schiena dormire stanco stipendio
licenziamento viaggio viaggiare chitarra calcio romanzo poesia barzelletta barzellette ansia stressato
сестра брат дочь сын дети ребёнок ребенок мама папа родители девушка парень спина спину спать устал устала зарплата
зарплату уволиться увольнение путешествие поездка гитара футбол стих стихи анекдот шутка
тревога грустно
siostra córka dzieci dziecko mama tata rodzice dziewczyna chłopak plecy kręgosłup spać zmęczony zmęczona pensja
podwyżka zwolnienie podróż gitara żart żarty smutny
kardeşim kızım oğlum çocuk çocuklar bebek annem babam sevgilim uyku uyumak yorgun maaş zam istifa seyahat gitar
futbol şiir fıkra şaka kaygı üzgün
adik kakak anak bayi ibu ayah pacar punggung tidur capek lelah gaji jalan-jalan puisi lelucon cemas sedih
ngủ mệt lưng buồn mẹ bố lương thơ
годовщина годовщину подарить жена жене муж мужу wesele rocznica rocznicę kac kaca żona żony mąż regalar aniversario
esposa esposo marido presentear jahrestag schenken ehefrau ehemann regalare moglie marito anniversario
yıldönümü karım kocam kado istri suami
pensierino шея шею шеи подушка подушку tarif tarifi makarna
"""
# Two-word phrases, matched in the ask as written (a phrase is never listed among the words above, where
# it would be split: hafta sonu, the weekend, is not hafta, a week, nor hava durumu, the weather, durumu,
# a status); with them the words of a message that only shares news or a feeling and asks for nothing.
_LATIN_PHRASES = (
    "no question", "just wanted to tell", "just wanted to share", "just proud", "just sharing", "just venting",
    "need to vent", "no need to reply", "no reply needed", "that's the message", "wollte es nur erzählen",
    "wollte nur erzählen", "solo quería contar", "solo queria contar", "je voulais juste le dire",
    "juste pour partager", "só queria contar", "so queria contar", "просто хотел поделиться",
    "просто хотела поделиться", "sadece paylaşmak istedim", "cuma mau cerita", "cuma mau berbagi",
    "dokter hewan", "board game", "board games", "team lunch", "day off", "days off", "date night", "first date",
    "gluten free",
    "gluten-free", "pep talk", "road trip", "video game", "video games", "paint color", "paint colour", "used car",
    "imposter syndrome", "impostor syndrome", "back pain", "job offer", "return to office", "день рождения",
    "my cat", "our cat", "a cat", "second cat", "new cat", "a master's", "masters in", "a phd", "phd in",
    "learning spanish", "learning french", "learning german",
    "learning japanese", "learning a language", "learn a language", "practice speaking", "water a",
    "doğum günü", "öğle yemeği", "akşam yemeği", "hafta sonu", "hava durumu",
    "ulang tahun", "akhir pekan", "makan siang", "makan malam", "sinh nhật", "đám cưới",
    "kỳ nghỉ", "bữa trưa", "bữa tối", "công thức nấu", "nhà hàng", "xem phim", "cuối tuần", "thời tiết",
    # health, career, money, travel, relationships, opinions and creative writing: the words that
    # alone would name work ("sleep", "raise", "interview", "debt", "story") only in a phrase
    "eye strain", "my eyes", "mal aux yeux", "mal au dos", "mal à la tête", "dolor de espalda", "dolor de cabeza",
    "fall asleep", "sleep schedule", "sleep better", "mental health", "see a doctor",
    "cost of living", "unpaid leave", "parental leave", "maternity leave", "paternity leave", "sick leave",
    "sick day", "pay raise", "a raise", "job interview", "my resume", "my cv", "laid off", "quit my job",
    "quitting my job", "quit tech", "quitting tech", "career change", "change careers", "master's degree",
    "masters degree", "work-life balance", "work life balance", "burned out", "burnt out", "stock options",
    "credit card debt", "student loans", "free time", "free afternoon", "weekend trip", "is it just me",
    "worth the hype", "bedtime story", "fairy tale", "a haiku", "haiku about",
    # things to read, watch or listen to, asked for ("classic books on copywriting", "podcasts about startups")
    "books on", "books about", "book recommendations", "podcasts on", "podcasts about", "podcast recommendations",
    "youtube channels", "documentaries about", "audiobooks", "worth listening to", "worth reading", "must-read",
    # courses and gear to buy, asked for ("is there an SEO course that …", "what headset for on-call?")
    "a course", "course that", "course recommendations", "online course", "course on", "courses on", "course for",
    "udemy", "coursera", "un corso", "corso online", "um curso", "curso bom", "un curso", "un cours", "einen kurs",
    "курс по", "kurs online", "headset", "headphones", "noise cancelling", "noise-cancelling", "office chair",
    "ergonomic keyboard", "mechanical keyboard", "podcast for", "podcasts for", "was koch", "was soll ich kochen",
    "was kann ich kochen",
    "standing desk", "mechanical keyboard", "new laptop", "laptop for", "big tv",
    # a career asked about in general ("is it too late to learn python", "the usual pay bump to manager")
    "too late to", "get good at", "pay bump", "career path", "break into", "usually look like",
    # reading and gear to buy, asked for oneself ("best books on copywriting?", "laptop recs for data science")
    "best books", "good books", "book recs", "book recommendations", "laptop recs", "laptop recommendations",
    "recommend a laptop", "which laptop",
    "couples", "back asleep",
    # a career change and sore eyes, in the other languages ("odejść z korpo", "muốn đổi nghề", "gözlerim kurudu")
    "den job wechseln", "jobwechsel", "cambiar de carrera", "cambiar de trabajo", "changer de métier", "reconversion",
    "mudar de área", "mudar de carreira", "trocar de emprego", "cambiare lavoro", "сменить профессию",
    "сменить работу", "zmienić pracę", "odejść z korpo", "kariyer değiştirmek", "iş değiştirmek", "ganti karir",
    "pindah kerja", "đổi nghề", "chuyển nghề", "meine augen", "mis ojos", "mes yeux", "meus olhos", "i miei occhi",
    "gözlerim", "göz sağlığı", "sakit mata", "mỏi mắt",
    # going to the doctor about oneself ("Devo ir ao médico ou é normal?")
    "go to the doctor", "see a doctor", "ir ao médico", "ir ao medico", "ir al médico", "ir al medico", "zum arzt",
    "chez le médecin", "dal medico", "к врачу", "do lekarza", "doktora git", "ke dokter", "đi khám",
    "bel ağrısı", "naik gaji", "sepak bola", "nghỉ việc", "du lịch", "bóng đá", "người yêu", "em gái", "anh trai",
    "con gái", "con trai", "tiểu thuyết", "truyện cười", "lo âu", "đau lưng",
)
_CJK_WORDS = (
    # shares news or a feeling, asks for nothing
    "不用回复", "不用回覆", "就是想说一声", "就是想說一聲", "返信不要", "聞いてほしい", "답장 안 해도",
    # zh
    "午饭", "午餐", "晚饭", "晚餐", "早餐", "菜谱", "食谱", "蛋糕", "小狗", "狗狗", "猫咪", "小猫", "宠物", "过生日",
    "過生日", "生日快乐", "生日快樂", "生日礼物", "生日禮物", "生日派对", "生日派對", "婚礼", "婚禮", "纪念日",
    "紀念日", "度假", "旅游", "旅遊", "爬山", "徒步", "礼物", "禮物", "奶奶", "外婆", "团建", "團建", "约会", "約會",
    "失眠", "助眠", "睡前", "放松一下", "放鬆一下", "甘いもの", "ご褒美", "기분 전환",
    "焦虑", "焦慮", "健身", "电影", "電影", "餐厅", "餐廳", "聚餐", "周末", "週末", "天气", "天氣", "假期",
    "转行", "轉行", "跳槽", "換工作", "换工作", "転職", "이직", "眼睛疼", "目が疲れ", "눈이 아파",
    "推荐几本", "推薦幾本", "几本书", "幾本書", "书单", "書單", "おすすめの本", "책 추천",
    "放假", "过年", "過年", "春节", "春節", "火锅", "火鍋", "做饭", "做飯", "好吃", "减肥", "減肥", "感冒", "头疼",
    "頭疼", "睡不着", "睡不著", "女朋友", "男朋友", "老婆", "老公", "爸妈", "爸媽", "心情", "出去玩", "景点", "景點",
    "衣服", "小说", "小說", "唱歌", "跑步", "拉伸", "腰疼", "颈椎", "頸椎", "房东", "房東", "租房", "买车", "買車",
    "跳槽", "辞职", "辭職", "笑话", "笑話",
    "妹妹", "姐姐", "哥哥", "弟弟", "女儿", "女兒", "儿子", "兒子", "孩子", "宝宝", "寶寶", "妈妈", "媽媽", "爸爸",
    "父母", "男友", "女友", "眼睛", "睡觉", "睡覺", "工资", "工資", "涨薪", "漲薪", "加薪", "裁员",
    "裁員", "旅行", "吉他", "钢琴", "鋼琴", "足球", "篮球", "籃球", "写诗", "寫詩", "难过", "難過", "伤心", "傷心",
    "压力大", "壓力大", "相亲", "相親", "结婚", "結婚", "离婚", "離婚",
    # ja
    "ランチ", "夕食", "朝食", "レシピ", "ケーキ", "犬", "猫", "ペット", "誕生日", "結婚式", "旅行", "休暇",
    "プレゼント", "おばあちゃん", "映画", "筋トレ", "レストラン", "飲み会", "週末", "天気", "休日", "料理",
    "ダイエット", "風邪", "彼女", "彼氏", "観光", "腰痛", "転職", "退職", "引っ越し", "冗談", "ジョーク",
    "息子", "子供", "子ども", "赤ちゃん", "両親", "肩こり", "眠れない", "睡眠", "給料", "昇給", "リストラ",
    "ギター", "ピアノ", "サッカー", "小説", "悲しい", "寂しい",
    # ko
    "점심", "저녁", "아침", "레시피", "케이크", "강아지", "고양이", "반려동물", "생일", "결혼식", "여행", "휴가",
    "할머니", "데이트", "영화", "운동", "식당", "맛집", "회식", "주말", "날씨", "요리", "다이어트", "감기",
    "여자친구", "남자친구", "관광", "허리", "이직", "퇴사", "농담", "패딩", "캐리어", "옷",
    "ダウンジャケット", "スーツケース", "羽绒服", "羽絨服", "行李箱",
    "여동생", "남동생", "언니", "오빠", "누나", "아들", "아기", "엄마", "아빠", "부모님", "어깨", "피곤", "월급",
    "연봉", "승진", "피아노", "축구", "소설", "우울", "슬퍼",
)
_WORDS = frozenset(_LATIN_WORDS.split())
# Indonesian says "my" and "your" with a suffix: kucingku (my cat), bosmu; such a word is its root's.
_OWNED_WORDS = frozenset(word + owner for word in _WORDS for owner in ("ku", "mu"))
LONGEST_EVERYDAY_ASK = 600


def _by_first(items: tuple[str, ...], first: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for item in items:
        found.setdefault(first(item), []).append(item)
    return {key: tuple(values) for key, values in found.items()}


# Phrases by their first word, CJK words by their first character: an ask is searched only for
# those its own words and characters can start.
_PHRASES_BY_WORD = _by_first(_LATIN_PHRASES, lambda phrase: sorted(plain_words(phrase), key=phrase.find)[0])
_CJK_BY_CHARACTER = _by_first(_CJK_WORDS, lambda word: word[0])
_PHRASE_FIRSTS, _CJK_FIRSTS = frozenset(_PHRASES_BY_WORD), frozenset(_CJK_BY_CHARACTER)  # set & set walks the smaller




def everyday_words(ask: str) -> tuple[str, ...]:
    """The everyday-life words of a (normalised) ask, in the order met; none in an ask longer than
    LONGEST_EVERYDAY_ASK characters, which carries a task of its own (a pasted log, a spec)."""
    if len(ask) > LONGEST_EVERYDAY_ASK:
        return ()
    words = plain_words(ask)
    found = set(words.intersection(_WORDS))
    found.update(words & _OWNED_WORDS)  # kucingku: kucing, my cat
    for word in words & _PHRASE_FIRSTS:
        found.update(phrase for phrase in _PHRASES_BY_WORD[word] if phrase in ask)
    if holds_cjk(ask):
        for character in _CJK_FIRSTS.intersection(ask):
            found.update(word for word in _CJK_BY_CHARACTER[character] if word in ask)
    return tuple(sorted(found, key=lambda word: (_first_place(ask, word), word)))


def _first_place(ask: str, word: str) -> int:
    """Where a word first stands in the ask as a whole word (a bare `find` could meet it inside
    another word first: `car` in `scary`)."""
    match = re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", ask)
    return match.start() if match else ask.find(word)
