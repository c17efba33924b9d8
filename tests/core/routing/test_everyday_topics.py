"""An ask about everyday life (a cake, a puppy, a birthday) needs a strong match to route a skill."""

from __future__ import annotations

import pytest

from proxy.core.routing.everyday_topics import everyday_words
from proxy.core.routing.router import EVERYDAY_LIFE_MIN_SCORE, EVERYDAY_MIN_SCORE, MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "word"), [
    ("cake ideas for 12 people, one of them gluten free?", "cake"),
    ("what's a good name for a puppy?", "puppy"),
    ("recommend a board game for 4 adults", "board game"),
    ("Was schenke ich meiner Oma zum Geburtstag?", "oma"),
    ("cosa metto in valigia per la trasferta in montagna?", "valigia"),
    ("outing kantor ke puncak, bawa jaket tebal gak ya?", "jaket"),
    ("회사 워크숍으로 산에 가는데 패딩 챙겨야 할까요?", "패딩"),
    ("¿Qué receta de pastel es fácil?", "receta"),
    ("Какой подарок купить на день рождения?", "подарок"),
    ("Hafta sonu tatil için öneri?", "tatil"),
    ("周末团建去哪里比较好？", "团建"),
    ("誕生日のプレゼントは何がいい？", "誕生日"),
    ("강아지 이름 추천해줘", "강아지"),
    ("у нас годовщина через неделю. что подарить?", "подарить"),
    ("Jak przetrwać wesele i nie mieć kaca w niedzielę?", "wesele"),
    ("睡前喝点什么能助眠？", "助眠"),
    ("kucingku ga mau makan dari kemarin, perlu dibawa ke dokter hewan?", "kucingku"),  # kucing, my cat
    ("Akşama 20 dakikada yapılacak bir makarna tarifi var mı", "makarna"),
])
def test_everyday_words_are_found_in_many_languages(text: str, word: str) -> None:
    assert word in everyday_words(normalize(text))


@pytest.mark.parametrize("text", [
    "add a book-a-demo button to the pricing page",
    "our game server drops players after 10 minutes",
    "cat the log file and grep for errors",
    "tối ưu truy vấn SQL này giúp tôi",  # Vietnamese "optimise", not "evening"
    "la mala configuración del proxy rompe los tests",  # Spanish "bad", not the Portuguese suitcase
    "pack the app into a docker image with a slim base",  # pack is work's word too
    "la recette de l'API échoue sur le serveur de test",
])
def test_work_words_that_look_like_everyday_ones_are_not(text: str) -> None:
    assert everyday_words(normalize(text)) == ()


@pytest.mark.parametrize(("text", "word"), [
    ("how do I reduce eye strain after a day of notebooks?", "eye strain"),
    ("what helps you fall asleep after a 3am page?", "fall asleep"),
    ("how do I ask for a few months of unpaid leave?", "unpaid leave"),
    ("what's the cost of living like in Lisbon?", "cost of living"),
    ("should I do a master's degree at 30?", "master's degree"),
    ("write a short poem for my sister", "sister"),
    ("Wie bekomme ich eine Gehaltserhöhung von meinem Chef?", "gehaltserhöhung"),
    ("¿Cómo le digo a mi jefe que estoy cansado?", "cansado"),
    ("Comment demander une augmentation sans démissionner ?", "démissionner"),
    ("Как попросить прибавку к зарплате? Устал.", "устал"),
    ("Jestem zmęczony. Jak poprosić o podwyżkę?", "zmęczony"),
    ("Maaşıma zam istemek için ne demeliyim?", "zam"),
    ("Bagaimana cara minta naik gaji ke bos?", "naik gaji"),
    ("Làm sao để xin nghỉ việc một cách lịch sự?", "nghỉ việc"),
    ("怎么跟老板提加薪？", "加薪"),
    ("上司に昇給の相談をしたいです", "昇給"),
    ("상사에게 연봉 협상을 어떻게 하나요?", "연봉"),
    ("classic books on copywriting everyone should read?", "books on"),
    ("any podcasts about startups that are actually worth listening to", "podcasts about"),
    ("what are good names for a second cat?", "second cat"),
    ("is a master's in machine learning worth it for a data engineer?", "a master's"),
    ("how often should I water a fiddle leaf fig?", "water a"),
    ("J'ai mal aux yeux le soir. Des conseils ?", "mal aux yeux"),
    ("推荐几本关于机器学习历史的书", "推荐几本"),
    ("is there an SEO course that isn't just some guy upselling his agency", "course that"),
    ("what noise cancelling headset would you get for on-call?", "noise cancelling"),
    ("mi consigliate un corso online su Solidity?", "un corso"),
    ("I'm 35 and a nurse. is it too late to learn python?", "too late to"),
    ("có ai làm data analyst mà thấy chán SQL chưa, muốn đổi nghề luôn á", "đổi nghề"),
    ("Figma'da bütün gün çalışmaktan gözlerim kurudu", "gözlerim"),
])
def test_career_health_family_and_hobby_words_are_found(text: str, word: str) -> None:
    assert word in everyday_words(normalize(text))


@pytest.mark.parametrize("text", [
    "poetry add requests fails with a resolver error",  # the Python packaging tool
    "the child process exits before the parent reads its pipe",
    "git shows two parents for this merge commit",
    "sleep 5 between retries in the bash loop",
    "raise a ValueError when the story points are negative",
    "summarise the customer interviews into pains and quotes",
    "my boss wants a KPI dashboard for the support team",  # a boss is often who the work is for
    "JWT in a cookie or server-side sessions for our Express app?",  # an HTTP cookie
])
def test_work_words_near_the_new_everyday_ones_are_not(text: str) -> None:
    assert everyday_words(normalize(text)) == ()


@pytest.fixture(scope="module")
def router() -> SkillRouter:
    return SkillRouter((
        make_skill("marketing-ideas", "Marketing ideas and growth tactics for SaaS products and startups."),
        make_skill("emails", "Write lifecycle email sequences: welcome, birthday and win-back emails for customers."),
    ))


def test_a_weak_match_on_an_everyday_ask_is_capped_below_medium(router: SkillRouter) -> None:
    work = router.route("any startup ideas for a low-key team offsite?")
    assert [c.skill.name for c in work.selected] == ["marketing-ideas"]
    assert MEDIUM <= work.selected[0].score < EVERYDAY_MIN_SCORE  # weak, but no everyday topic
    lunch = router.route("any startup ideas for a low-key team lunch?")
    assert lunch.selected == ()
    top = lunch.candidates[0]
    assert top.skill.name == "marketing-ideas" and top.score < MEDIUM
    assert "penalty:everyday_topic=team lunch" in top.reasons


def test_a_strong_match_still_routes(router: SkillRouter) -> None:
    decision = router.route("write the birthday email sequence for customers: welcome, birthday and win-back emails")
    assert [c.skill.name for c in decision.selected] == ["emails"]
    assert decision.selected[0].score >= EVERYDAY_MIN_SCORE


@pytest.mark.parametrize("text", [
    "honestly no question, just proud: my first ML model went to production today",
    "今天终于把 SOC 2 审计过了！！！不用回复，就是想找个人说一声",
    "we passed the audit, just wanted to share",
])
def test_a_message_that_only_shares_news_names_an_everyday_topic(text: str) -> None:
    assert everyday_words(normalize(text))


def test_a_cjk_word_inside_a_word_of_work_is_not_everyday() -> None:
    assert everyday_words(normalize("アプリのアップデートを配信したい")) == ()  # デート in アップデート
    assert everyday_words(normalize("批量把 DICOM 文件脱敏，出生日期要去掉")) == ()  # 生日 in 出生日期
    assert everyday_words(normalize("이사회 보고서를 써 줘")) == ()  # 이사 in 이사회


def test_the_life_a_first_question_goes_on_to_tell_counts_but_a_scene_before_a_pivot_does_not(
        router: SkillRouter) -> None:
    chatter = router.route("any startup ideas that are fun? asking because I'm planning my sister's birthday party")
    assert chatter.selected == ()
    assert any(r.startswith("penalty:everyday_topic=") for r in chatter.candidates[0].reasons)
    work = router.route("my birthday is today lol. anyway, any startup ideas and growth tactics for our SaaS?")
    assert [c.skill.name for c in work.selected] == ["marketing-ideas"]


def test_a_two_word_everyday_phrase_is_not_read_as_its_words() -> None:
    # hafta sonu (weekend) and akhir pekan (weekend) are everyday; hafta (week), durumu (its status)
    # and akhir (end, final) name work as often
    assert everyday_words("bu hafta sonu ne yapsam?") == ("hafta sonu",)
    assert everyday_words("liburan akhir pekan") == ("liburan", "akhir pekan")
    assert everyday_words("ilk hafta için bir iç duyuru yaz, sunucu durumu da olsun") == ()
    assert everyday_words("buat laporan akhir bulan") == ()


def test_an_everyday_ask_for_no_work_needs_a_stronger_match_than_one_for_work() -> None:
    router = SkillRouter((make_skill("emails", "Write lifecycle email sequences: welcome, birthday and win-back "
                                     "emails for customers."),))
    life = router.route("how do I plan my birthday party with win-back games?")  # asks for no work
    assert life.selected == ()
    assert "penalty:everyday_topic=birthday" in life.candidates[0].reasons
    work = router.route("plan my birthday party with win-back games")  # a request verb opens it
    assert [c.skill.name for c in work.selected] == ["emails"]
    assert EVERYDAY_MIN_SCORE <= work.selected[0].score < EVERYDAY_LIFE_MIN_SCORE


def test_the_life_told_in_sentences_before_a_request_for_work_is_a_scene() -> None:
    router = SkillRouter((make_skill("slack-gifs", "Create animated GIFs for Slack: loops, emoji, small files."),))
    work = router.route("my grandma turned 90 today and we filmed her cat dancing lol. "
                        "can you turn it into a looping gif for our team slack?")
    assert [c.skill.name for c in work.selected] == ["slack-gifs"]
    assert not any(r.startswith("penalty:everyday_topic") for r in work.selected[0].reasons)
    life = router.route("my grandma turned 90 today. can you make a gif for her birthday party?")  # still her life
    assert "penalty:everyday_topic=birthday" in life.candidates[0].reasons
    # a want taken back is no request: the birthday told before it still counts
    vented = router.route("my grandma's birthday party was today. i don't need animated loops of it, it was lovely")
    assert "penalty:everyday_topic=grandma" in vented.candidates[0].reasons


@pytest.mark.parametrize(("text", "word"), [
    ("laptop recs for data science, mostly pandas and some light pytorch, budget around 1500", "laptop recs"),
    ("best books on copywriting? want to get better at it myself", "best books"),
])
def test_reading_and_gear_to_buy_are_everyday_asks(text: str, word: str) -> None:
    assert word in everyday_words(normalize(text))


def test_going_to_the_doctor_is_an_everyday_ask() -> None:
    assert everyday_words(normalize("Ando com dores no pulso por causa do Excel. Devo ir ao médico ou é normal?")) == (
        "ir ao médico",)
