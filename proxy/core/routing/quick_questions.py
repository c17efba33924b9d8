"""Quick questions: one short sentence asking how to do one small thing, or what something is.

"how do I add ~/bin to my $PATH on zsh?", "how do I rename a column in a pandas dataframe",
"command to extract a .tar.gz into a specific folder", "what's the keyboard shortcut to split the
terminal in vscode?" ask for a line a model knows by heart. A skill's workflow (a checklist, scripts,
references) does not help, and routing one adds its instructions to a one-line answer. Such a
question routes a skill only on a `high` match (the router scales a weaker one below `medium` and
says `penalty:quick_question=how do i`); "how do I fine-tune Llama 3 with GRPO on my math dataset?"
meets a skill strongly enough to keep it.

A quick question is a single sentence of at most QUICK_MAX_WORDS words that opens with "how do I",
"how to", "what's the", "which", "is there a way to", or asks for a "command", "one-liner",
"regex", "syntax" or "shortcut", perhaps after where it is asked ("in vim how do I …", "git: how
do I …"); or a textbook exercise, a small piece of code about nobody's own system ("write a python
function that reverses a linked list", not "write a function that parses our invoices"). A message
of two sentences sets a scene or reports a problem, and a request for work on the user's own system
("can you fix …", "write our …") is no quick question. English only, for now, except two shapes
read in every language: an ask for a command or a shortcut, and a setting of a phone, a computer or a
consumer app (`device_setting`: "comment on active le mode sombre sur Outlook web", "微信怎么关掉朋友圈的
广告"). Pure and deterministic, on the normalised (case-folded) message.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import holds_cjk, plain_words
from proxy.core.routing.triggered_patterns import first_match, holds_a_trigger, triggered

QUICK_MAX_WORDS = 16
QUICK_MAX_CHARS = 200

_OPENER = re.compile(
    # where it is asked: "in vim how do I …", "in javascript, what's the …", "git: how do I …", "quick one: …"
    r"(?:(?:in [\w.+#-]+(?: [\w.+#-]+)?,? |[\w.+#-]+(?: [\w.+#-]+)?: )(?=how|what|which|where|is there))?"
    r"(?:how (?:do|can|would|should) (?:i|you|we)|how to|what(?:'s|’s| is|s) the|which|"
    r"where (?:do|is|are|can) (?:i|the)|"
    r"is there (?:a|an) (?:way|command|shortcut|setting|flag|option)|(?:bash |shell |git |sql |python |a )?"
    r"(?:command|one-liner|one liner|oneliner|regex|syntax|shortcut|keyboard shortcut|sql|snippet) (?:to|for)|"
    r"[\w.+#-]+ (?:flag|option) (?:to|for)|"
    r"[\w.+#-]+: )\b"
)
# A textbook exercise: "write a python function that reverses a linked list", "write a SQL query that returns
# the top 5 customers by order value": a small piece of code that stands alone, about nobody's system.
_EXERCISE = re.compile(
    r"(?:can you |could you |please |pls )?(?:write|give me|make|implement|code) (?:me )?(?:a|an) (?:[\w+#-]+ ){0,2}"
    r"(?:function|script|snippet|regex|query|one-liner|one liner|program|method|class)\b"
)
# In the other languages the router reads: an ask for the command or shortcut that does a thing
# ("lệnh git để xoá branch local là gì", "gitで直前のコミットメッセージを直すコマンドは？"). Their how-to
# openers are left alone: a lexicon match rarely reaches `high`, so they would lose too many requests.
_FOREIGN_COMMAND = triggered((
    (("comando", "lệnh", "lenh", "komenda", "komendy", "polecenie", "komut", "komutu", "perintah", "команда", "команду",
      "befehl", "commande", "atajo", "atalho", "raccourci", "scorciatoia", "skrót", "skrot", "kısayol", "kısayolu",
      "kisayol", "kisayolu", "tastenkombination", "tastenkürzel", "phím", "хоткей", "сочетание", "горячие",
      "shortcut", "shortcutnya"),
     r"\b(?:comando|lệnh|lenh|komenda|komendy|polecenie|komut|komutu|perintah|команда|команду|befehl|commande|"
     r"atajo|atalho|raccourci|scorciatoia|skrót|skrot|kısayol\w*|kisayol\w*|tastenkombination|tastenkürzel|"
     r"phím tắt|хоткей|сочетание клавиш|горячие клавиши|shortcut(?:nya)? (?:buat|untuk|apa))\b"),
    # which flag or option of a command ("git'te son commit mesajını değiştirmek için hangi flag vardı?")
    (("flag", "flaga", "флаг", "option", "opción", "opcion", "opção", "opcao", "opzione", "parametre", "parametr",
      "parámetro", "parametro", "paramètre", "parameter", "параметр"),
     r"\b(?:hangi|quel(?:le)?|welche[sn]?|qu[eé]|qual|quale|какой|jak[ai]|jakiego|apa) (?:flag|flaga|флаг|option|"
     r"opci[oó]n|opç[aã]o|opcao|opzione|parametre|parametr|par[aá]metro|parametro|param[eè]tre|parameter|параметр)\b|"
     r"\b(?:flag|flaga|option|opsi|parameter) (?:apa|nào|nao)\b"),
    (("コマンド", "ショートカット", "명령어", "단축키", "命令是", "快捷键", "快捷鍵"),
     r"コマンド|ショートカット|명령어|단축키|命令是|快捷键|快捷鍵"),
))
# A setting of a phone, a computer or a consumer app asked about ("comment on active le mode sombre sur
# Outlook web", "微信怎么关掉朋友圈的广告", "Telefonumda karanlık mod nasıl ayarlanır?"): the model knows
# where the switch is, and no skill about building apps helps. Both a device or app and a switch must be
# named; a request to build one ("add a dark mode toggle to our app") names neither kind of device, and a
# phone number ("手機號碼", "numer telefonu") is data, not a phone.
_DEVICES = triggered((
    (("iphone", "ipad", "android", "mac", "macbook", "windows", "outlook", "gmail", "whatsapp", "wechat", "telegram",
      "chrome", "safari", "firefox", "onedrive", "dropbox", "icloud", "spotify", "netflix", "youtube", "kindle",
      "airpods", "google", "phone", "laptop", "telefon", "telefonu", "telefonumda", "telefonumu", "teléfono",
      "telefono", "telefone", "téléphone", "celular", "móvil", "movil", "portable", "handy", "smartphone",
      "телефон", "телефоне", "телефона", "ноутбук", "ноутбуке", "komórka", "komórce", "telefonie", "laptopie",
      "ponsel", "hp", "điện", "dien", "portatile", "portátil", "notebook", "ordinateur", "pc"),
     r"(?<!number )(?<!numer )(?<!номер )(?<!nomor )(?<!số )(?<!so )(?<!número de )(?<!numero de )(?<!numéro de )"
     r"\b(?:iphone|ipad|android|mac(?:book)?|windows(?: \d+)?|outlook|gmail|whatsapp|wechat|telegram|chrome|safari|"
     r"firefox|onedrive|dropbox|icloud|spotify|netflix|youtube|kindle|airpods|google (?:drive|maps|photos|chrome)|"
     r"(?:my |the )?(?:phone|laptop)|telefon\w*|tel[eé]fono|telefone|t[eé]l[eé]phone|celular|m[oó]vil|portable|handy|"
     r"smartphone|телефон\w*|ноутбук\w*|komórk\w+|telefonie|laptopie|ponsel|hp|đi[eệ]n tho[aạ]i|dien thoai|"
     r"port[aá]til[e]?|notebook|ordinateur|pc)\b(?! numbers?| numarası| numarasi)"),
    (("手机", "手機", "电脑", "電腦", "微信", "スマホ", "携帯", "パソコン", "핸드폰", "휴대폰", "노트북",
      "카톡", "아이폰", "アイフォン", "ライン", "浏览器", "瀏覽器", "ブラウザ", "브라우저"),
     r"手机(?!号)|手機(?!號)|电脑|電腦|微信|スマホ|携帯|パソコン|핸드폰|휴대폰|노트북|카톡|아이폰|アイフォン|ライン|"
     r"浏览器|瀏覽器|ブラウザ|브라우저"),
))
_SWITCHES = triggered((
    (("turn", "switch", "enable", "disable", "activate", "deactivate", "dark", "default", "notifications", "sync",
      "syncing", "autoplay", "active", "désactive", "desactive", "activer", "désactiver", "desactiver", "sombre",
      "einstellen", "ein", "aus", "ausschalten", "einschalten", "deaktivieren", "aktivieren", "dunkelmodus",
      "activar", "desactivar", "activo", "desactivo", "oscuro", "ativar", "desativar", "ativo", "desativo", "escuro",
      "attivare", "disattivare", "togliere", "scura", "sincronizzazione", "включить", "выключить", "отключить",
      "тёмную", "темную", "тёмный", "темный", "włączyć", "wyłączyć", "ciemny", "ciemnego", "açılsın", "kapatmak",
      "kapatırım", "ayarlanır", "ayarlarım", "karanlık", "aktifkan", "matikan", "nonaktifkan", "gelap", "bật", "tắt",
      "bat", "tat", "tối", "toi"),
     r"\b(?:turn (?:on|off)|switch (?:on|off)|(?:en|dis)able|(?:de)?activate|dark mode|(?:the )?default|notifications|"
     r"sync(?:ing)?|autoplay|(?:d[eé]s)?activ(?:e|er)|mode sombre|(?:ein|aus)(?:stellen|schalten)|stelle\b.{0,30}\bein|"
     r"(?:de)?aktivieren|dunkelmodus|(?:des)?activ(?:ar|o)|modo oscuro|(?:des)?ativ(?:ar|o)|modo escuro|"
     r"(?:dis)?attivare|togliere|modalità scura|sincronizzazione|включить|выключить|отключить|т[её]мн\w+ тем\w*|"
     r"włączyć|wyłączyć|tryb ciemn\w+|açılsın|kapat\w+|ayarla\w*|karanlık mod|aktifkan|matikan|nonaktifkan|"
     r"mode gelap|bật|tắt|bat|tat|chế độ tối|che do toi)\b"),
    (("关掉", "关闭", "關掉", "關閉", "打开", "打開", "开启", "開啟", "改成", "默认", "預設", "深色", "设置",
      "設定", "オフ", "オン", "ダークモード", "無効", "끄", "켜", "설정", "다크"),
     r"关掉|关闭|關掉|關閉|打开|打開|开启|開啟|改成|默认|預設|深色|设置|設定|オフ|オン|ダークモード|無効|끄|켜|설정|다크"),
))
# A how-to in another language about a command-line tool ("jak cofnąć ostatni commit w git ale zostawić zmiany",
# "git 怎么撤销最近一次 commit，但保留改动"): a line the model knows, like its English "how do i".
_TOOL_HOWTO = triggered((
    (("cómo", "como", "comment", "wie", "come", "как", "jak", "nasıl", "nasil", "gimana", "bagaimana", "cara", "sao",
      "cách", "cach"),
     r"^(?:¿)?(?:c[oó]mo|comment|wie|come|как|jak|nas[ıi]l|gimana|bagaimana|cara|l[aà]m sao|c[aá]ch)\b"
     r"(?=.*\b(?:git|npm|pip|yarn|pnpm|docker|kubectl|vim|nano|vscode|bash|zsh|powershell|brew|conda)\b)"),
    (("怎么", "怎麼", "如何", "どうやって", "어떻게"),
     r"^(?=.*\b(?:git|npm|pip|yarn|pnpm|docker|kubectl|vim|vscode|bash|zsh|powershell|brew|conda))"
     r".{0,40}(?:怎么|怎麼|如何|どうやって|어떻게)"),
))
# A conversion between units of length, weight, volume or temperature, in any language ("1 inch bằng bao
# nhiêu cm", "how many ounces in a cup", "cuántos km son 10 millas", "1インチは何センチ"): two units and a
# how-many word (or "to"/"in" between them: "5 ft to cm?"). A fact the model knows, whatever the message
# is for; units of data (MB, GB) are left out: "how many GB does our index need" asks about a system, and
# so are unit words that are other words too (English stop and once, mille: a thousand).
_UNIT_WORDS = (
    r"mm|cm|km|centimet(?:er|re)s?|met(?:er|re)s?|metr(?:ów|ach|y|a|u|ami|om|e)?|kilomet(?:er|re)s?|inch(?:es)?|"
    r"ft|feet|foot|yards?|yd|miles?|grams?|kg|kilos?|kilograms?|lbs?|pounds?|oz|ounces?|ml|lit(?:er|re)s?|"
    r"gallons?|gal|cups?|tbsp|tsp|tablespoons?|teaspoons?|celsius|fahrenheit|pulgadas?|polegadas?|pouces?|zoll|"
    r"pollic[ei]|дюйм\w*|inç|inci|pieds?|fuß|fuss|pied[ei]|фут\w*|stóp|stop[ay]|millas?|milhas?|meilen?|"
    r"migli[oa]|мил[ья]\w*|libras?|livres?|pfund|libbr[ae]|фунт\w*|funt\w*|унци\w*|onzas?|onças?|onces|unzen?|"
    r"сантиметр\w*|метр\w*|километр\w*|градус\w*|\d+ ?°?[cf]|\d+ ?(?:m|g|l)")
_UNIT_CJK = (r"센티|센치|미터|인치|피트|마일|파운드|킬로|インチ|センチ|メートル|フィート|マイル|ポンド|キロ|"
             r"英寸|厘米|公分|英尺|英里|磅|公斤|摄氏|華氏|华氏|攝氏")
_UNIT = rf"(?<![\w°])(?:{_UNIT_WORDS})(?![\w°])|{_UNIT_CJK}"
_HOW_MANY = (r"\b(?:how many|how much|cu[aá]nt[oa]s?|quant[oa]s?|quant[ie]|combien|wie viele?|сколько|ile|kaç|kac|"
             r"berapa|bao nhi[eê]u)\b|몇|何|多少|얼마|いくら")
_CJK_HOW_MANY = re.compile(r"몇|何|多少|얼마|いくら")
_CONVERSION = re.compile(rf"(?:{_UNIT}).{{0,40}}?(?:\b(?:to|in|into)\b.{{0,12}}?(?:{_UNIT})|{_HOW_MANY})"
                         rf"|(?:{_HOW_MANY}).{{0,40}}?(?:{_UNIT})")
_UNIT_WORD = re.compile(_UNIT)


# What the regexes above need, as words: a cheap first test that most messages fail.
_HOW_MANY_WORDS = frozenset("many much cuantos cuántos cuantas cuántas quanto quanta quantos quantas quanti quante "
                            "combien viel viele сколько ile kaç kac berapa nhiêu nhieu to in into".split())
_UNIT_FORMS = frozenset("""
mm cm km centimeter centimeters centimetre centimetres meter meters metre metres metr metrów metrach metry metra
metru metrami metrom kilometer kilometers kilometre kilometres inch inches ft feet foot yard yards yd mile miles
gram grams kg kilo kilos kilogram kilograms lb lbs pound pounds oz ounce ounces ml liter liters litre litres gallon
gallons gal cup cups tbsp tsp tablespoon tablespoons teaspoon teaspoons celsius fahrenheit pulgada pulgadas polegada
polegadas pouce pouces zoll pollice pollici inç inci pied pieds fuß fuss piede piedi stopa stopy stóp milla
millas milha milhas meile meilen miglio miglia libra libras livre livres pfund libbra libbre onza onzas
onça onças onces unze unzen
""".split())
_UNIT_STEMS = ("дюйм", "фут", "мил", "фунт", "funt", "унци", "сантиметр", "метр", "километр", "градус")
_UNIT_CJK_RE = re.compile(_UNIT_CJK)
_DIGIT = re.compile(r"\d")


def _may_name_units(text: str) -> bool:
    """A how-many word (or to, in) and a unit's word, a number or CJK: what `_CONVERSION` cannot match without."""
    words = plain_words(text)
    cjk = holds_cjk(text)
    if words.isdisjoint(_HOW_MANY_WORDS) and not (cjk and _CJK_HOW_MANY.search(text)):
        return False
    return (not words.isdisjoint(_UNIT_FORMS) or _DIGIT.search(text) is not None
            or (not text.isascii() and any(w.startswith(_UNIT_STEMS) for w in words))
            or (cjk and _UNIT_CJK_RE.search(text) is not None))


def _unit_conversion(text: str) -> str:
    """A conversion between units asked (`_CONVERSION`) in one short sentence: two different units named,
    and a how-many word."""
    if not _may_name_units(text) or len(_WORD.findall(text)) > QUICK_MAX_WORDS:
        return ""
    match = _CONVERSION.search(text)
    if match is None or len(set(_UNIT_WORD.findall(text))) < 2:
        return ""
    return "unit conversion"


# "mein Bash-Skript", "nuestra app": a how-to about the user's own thing asks for work on it.
_MY_OWN = re.compile(r"\b(?:mein\w*|unser\w*|mis?|mon|mes|ma|meu|minha|nosso|nossa|nuestr[oa]s?|notre|nos|mi[oa]|"
                     r"nostr[oa]|мо[йяеи]|наш\w*|mój|moja|moje|nasz\w*|benim|bizim|saya|kami|"
                     r"của (?:tôi|mình|chúng tôi))\b|"
                     r"我的|我们的|我們的|私の|うちの|내 |우리")
DEVICE_SETTING_MAX_WORDS = 25


def device_setting(text: str) -> str:
    """The device or app of a (normalised) short question about one of its settings, or ""."""
    if len(text) > QUICK_MAX_CHARS or not holds_a_trigger(_DEVICES, text) or not holds_a_trigger(_SWITCHES, text):
        return ""  # most messages stop here: two set tests
    if len(_WORD.findall(text)) > DEVICE_SETTING_MAX_WORDS or _INNER_SENTENCE_END.search(text.strip().rstrip("?!. ")):
        return ""
    if _ABOUT_THEIR_OWN_WORK.search(text):
        return ""
    device = first_match(_DEVICES, text)
    return device.group() if device is not None and first_match(_SWITCHES, text) is not None else ""


# "our app", "unsere App", "nuestra app": a setting of the user's own product is work on it.
_ABOUT_THEIR_OWN_WORK = re.compile(r"\b(?:our|unser\w*|nuestr[oa]s?|notre|nos|nosso|nossa|nostr[oa]|наш\w*|"
                                   r"nasz\w*|kami|chúng tôi|bizim)\b|我们|我們|うちの|우리")
_ABOUT_THEIR_OWN = re.compile(r"\b(?:my|our|this|these|your|we|i)\b|\bi'")
_INNER_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)(?=.)|\n")
_WORD = re.compile(r"[^\W_]+")


def quick_question(text: str) -> str:
    """The opener of a (normalised) quick question ("how do i"), or ""."""
    text = text.strip()
    if len(text) > QUICK_MAX_CHARS:  # longer than any question of QUICK_MAX_WORDS words: most messages stop here
        return ""
    match = _OPENER.match(text) or first_match(_FOREIGN_COMMAND, text)
    if match is None:  # the how-to shapes are anchored at the start: they fail fast
        tool = first_match(_TOOL_HOWTO, text)
        match = tool if tool is not None and _MY_OWN.search(text) is None else None
    if match is None:
        match = _EXERCISE.match(text)
        if match is None or _ABOUT_THEIR_OWN.search(text):
            return _unit_conversion(text)
    if len(_WORD.findall(text)) > QUICK_MAX_WORDS:
        return ""
    if _INNER_SENTENCE_END.search(text.rstrip("?!. ")):
        return ""
    return match.group().strip()
