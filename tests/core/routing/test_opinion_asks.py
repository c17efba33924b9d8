"""An ask for the model's own opinion routes no skill, unless it is about the user's own work."""

from __future__ import annotations

import pytest

from proxy.core.routing.opinion_asks import choice_ask, opinion_ask
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "opener"), [
    ("honestly what's the point of code review if everyone just clicks approve", "honestly what's the point of"),
    ("do you think AI will replace data analysts in 5 years? I do a lot of SQL", "do you think"),
    ("our CTO says we're data-driven but nobody opens the dashboards. is that common?", "is that common"),
    ("what do you think about 4-day work weeks for engineering teams?", "what do you think about"),
    ("who would win in a fight, a senior dev with vim or a junior with copilot", "who would win"),
    ("Was hältst du von Rust?", "was hältst du von"),
    ("o que vc acha do Copilot? vale a pena?", "o que vc acha"),
    ("¿Qué opinas de React vs Vue? Sin rodeos", "qué opinas"),
    ("Kotlin Multiplatform или Flutter — что тебе больше нравится и почему?", "тебе больше нравится"),
    ("sence yapay zeka programcıların işini elinden alır mı?", "sence"),
    ("Twoim zdaniem TDD ma sens czy to strata czasu?", "twoim zdaniem"),
    ("tu préfères quoi toi, PostgreSQL ou MySQL ?", "tu préfères"),
    ("AI 코딩 도구에 대해 어떻게 생각해?", "어떻게 생각"),
    ("你觉得低代码有前途吗", "你觉得"),
    # the model itself, and curiosity
    ("are you claude or chatgpt under the hood", "are you claude"),
    ("you're honestly better at regex than my lead. do you ever get tired of people asking you stuff?",
     "do you ever"),
    ("what's your knowledge cutoff? would you even know about the latest next.js release", "your knowledge cutoff"),
    ("how do search engines decide what shows up first? just curious, I don't even have a website", "just curious"),
    ("pourquoi tout le monde parle de microservices ?", "pourquoi tout le monde parle"),
    ("Czy Svelte ma szansę wygryźć Reacta?", "wygryźć"),
    ("Kotlin Multiplatform bakal ngalahin Flutter ga?", "bakal ngalahin"),
    ("Next.js se está volviendo demasiado complicado, ¿no crees?", "no crees"),
    ("AI 때문에 신입 개발자 채용 진짜 없어질까요?", "없어질까"),
    # "do you think that …" with the verb last, and the side the model takes
    ("재택근무가 생산성에 더 좋다고 생각하세요?", "다고 생각하세요"),
    ("スタートアップでスクラムは必要だと思いますか？", "と思いますか"),
    ("Vim mi VS Code mu? Ekipte herkes tartışıyor, sen hangi taraftasın?", "hangi taraftasın"),
    # whether one thing is better than another, in every language
    ("is Rust better than Go?", "is rust better than go?"),
    ("czy Rust jest lepszy od Go?", "jest lepszy od"),
    ("Rust Go'dan daha mı iyi?", "daha mı iyi"),
    ("Rust比Go好吗？", "比go好吗"),
    ("你对微服务怎么看？", "你对微服务怎么看"),
    # "это" is "it is" as often as "this": no own work in "или это хайп?"
    ("Как думаешь, Svelte вытеснит React или это хайп?", "как думаешь"),
    # whether the model believes a claim
    ("说实话，小红书上那些月入十万做副业的帖子你信吗？", "你信吗"),
    ("AI will replace all devs by 2030, you believe that?", "you believe that"),
    ("kamu percaya AI bakal gantiin programmer?", "kamu percaya"),
    ("bạn có tin là AI sẽ thay thế lập trình viên không?", "bạn có tin là"),
])
def test_asks_for_an_opinion_are_recognised(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


def test_vietnamese_tin_nhan_is_a_text_message_not_a_belief_asked() -> None:
    assert opinion_ask(normalize("Bạn có tin nhắn mới từ khách hàng, tóm tắt giúp mình")) == ""  # a text message


@pytest.mark.parametrize("text", [
    "what do you think of our schema?",  # a review of their own work
    "what's your take on this API design: GET /getUsers, POST /user/delete",
    "do you think we should shard the orders table at 200M rows?",  # a decision about their system
    "how do I review a pull request faster?",
    "was hältst du von meinem Code?",  # the same in the other languages: my, our, this, I
    "o que você acha do nosso schema?",
    "你觉得我的代码怎么样",
    "AI 코딩 도구에 대해 우리 팀은 어떻게 생각해야 할까?",
    "just curious, how would you index our orders table?",  # their own system
    "do you mind reviewing my PR before lunch?",
    "что ты думаешь об этом коде?",  # this code
    "이 코드가 더 낫다고 생각해?",
    "is postgres better than mysql for our app?",  # a decision about their system
    "¿es mejor que nuestro worker use colas o cron?",
])
def test_an_opinion_on_their_own_work_is_a_request(text: str) -> None:
    assert opinion_ask(normalize(text)) == ""


def test_an_opinion_ask_about_a_skill_topic_routes_nothing_and_says_why() -> None:
    router = SkillRouter((make_skill("code-review-excellence", "Code review practices: reviewing pull requests, "
                                     "giving review feedback, approving changes."),))
    opinion = router.route("what's the point of code review and pull request approving changes")
    assert opinion.selected == ()
    top = opinion.candidates[0]
    assert top.score < MEDIUM and "penalty:asks_an_opinion=what's the point of" in top.reasons
    work = router.route("review this pull request and give code review feedback before approving changes")
    assert [c.skill.name for c in work.selected] == ["code-review-excellence"]


@pytest.mark.parametrize("text", [
    "vim or emacs?",
    "is rust overrated or does it really deserve the hype?",
    "Kotlin Multiplatform или Flutter?",
    "tabs ou espaços?",
    "fresh graduate lebih enak kerja di startup atau BUMN?",
])
def test_a_short_choice_between_two_things_is_an_opinion(text: str) -> None:
    assert choice_ask(normalize(text)) == "a or b?"


@pytest.mark.parametrize("text", [
    "Postgres or Mongo for our chat history?",  # their own system
    "should we use Redux or Zustand for global state?",  # a decision about their work
    "nên dùng Redux hay Zustand để quản lý state toàn cục?",
    "is the p99 regression in the API or in the database? here are the traces",  # more than one sentence
    "can you compare Kafka or RabbitMQ for event sourcing, with throughput numbers, ordering guarantees, "
    "retention and the operational cost of each?",  # longer than a short question
])
def test_a_choice_about_their_own_work_is_no_opinion(text: str) -> None:
    assert choice_ask(normalize(text)) == ""


def test_a_choice_asked_after_a_scene_is_about_the_scene() -> None:
    router = SkillRouter((make_skill("auth-implementation-patterns", "Authentication and authorization: JWT, "
                                     "sessions, OAuth login, roles and permissions."),))
    bare = router.route("JWT or sessions for login?")
    assert bare.selected == () and "penalty:asks_an_opinion=a or b?" in bare.candidates[0].reasons
    scene = router.route("I'm adding Google login and admin roles to an Express app. JWT or sessions?")
    assert [c.skill.name for c in scene.selected] == ["auth-implementation-patterns"]


@pytest.mark.parametrize(("text", "opener"), [
    ("do you remember the postmortem stuff we talked about last week or do you start from zero every chat?",
     "start from zero every"),
    ("você aprende com as conversas que eu tenho contigo ou esquece tudo depois?", "você aprende com as conversas"),
    ("你还记得我们上次聊的那个项目吗？还是每次都从零开始？", "你还记得我们"),
])
def test_whether_the_model_remembers_between_chats_is_a_question_about_it(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener  # though it says "we talked about" or "our chats"


def test_remembering_a_thing_to_work_on_is_no_question_about_the_model() -> None:
    assert opinion_ask(normalize("do you remember the schema we discussed? add a created_at column to it")) == ""


@pytest.mark.parametrize(("text", "opener"), [
    ("Aku rasa dark mode lebih enak buat ngoding. Kamu setuju ga?", "kamu setuju ga"),  # agreement asked for
    ("Tabs sind besser als Spaces. Stimmst du zu?", "stimmst du zu"),
    ("Tu peux m'expliquer comment tu fonctionnes ?", "comment tu fonctionnes"),  # about the model
    ("너 대화 내용 저장해? 회사 코드 붙여넣어도 되는지 궁금해서", "대화 내용 저장"),
    ("Bạn nghĩ Flutter hay React Native sẽ thắng về lâu dài? hỏi cho vui thôi", "sẽ thắng"),
])
def test_agreement_and_questions_about_the_model_in_other_languages(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


def test_whether_moving_ones_system_is_worth_it_is_no_opinion_ask() -> None:
    # a worth-it rule was tried and left out: it cost a routed held-out case ("is it worth …" is often a decision)
    assert opinion_ask(normalize("Est-ce que ça vaut le coup de passer à DOTS ?")) == ""


@pytest.mark.parametrize(("text", "opener"), [
    ("does Scala still have a future?", "does scala still have a future"),
    ("czy Scala ma jeszcze jakąś przyszłość w świecie Sparka?", "ma jeszcze jakąś przyszłość"),
    ("Flutter với React Native, bạn thấy cái nào có tương lai hơn?", "cái nào có tương lai"),
    ("hat PHP noch eine Zukunft?", "hat php noch eine zukunft"),
    ("¿Angular tiene futuro?", "tiene futuro"),
    ("Rust a-t-il un avenir dans le web ?", "a-t-il un avenir"),
    ("is jQuery dead?", "is jquery dead?"),
    ("PHP는 이제 한물갔나요?", "한물갔"),
    ("yapay zekâ 5 yıl içinde müşteri hizmetlerini devralır mı, senin tahminin ne?", "senin tahminin ne"),
    ("타입스크립트 없이 자바스크립트만 쓰는 거 이제 좀 위험하다고 봐?", "다고 봐?"),
    ("NotionとConfluence、あなたならどっち派？", "どっち派"),
    ("тебе самому что больше нравится, монорепа или отдельные репозитории?", "тебе самому что больше нравится"),
])
def test_whether_a_technology_has_a_future_and_the_model_s_guess_are_opinions(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


@pytest.mark.parametrize("text", [
    "is the server dead?",  # a problem: the server is down
    "is our pod dead? it stopped answering",
    "what is the future of our product roadmap?",  # the user's own plan
    "predict next month's churn for our users",
])
def test_a_dead_server_and_the_future_of_one_s_own_product_are_no_opinions(text: str) -> None:
    assert opinion_ask(normalize(text)) == ""


@pytest.mark.parametrize(("text", "opener"), [
    ("do u think tailwind makes html ugly or is that just css people being grumpy", "do u think"),
    ("are cold emails even ethical? my sales friend swears by them. where do you land", "where do you land"),
    ("is a data-driven culture a thing or just slides? genuinely curious about your view", "curious about your view"),
])
def test_where_the_model_stands_is_asked_in_many_words(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


@pytest.mark.parametrize(("text", "opener"), [
    ("Noi that di, gio hoc Figma con dang ko? ban nghi sao", "ban nghi sao"),
    ("React với Vue cái nào code sướng tay hơn theo gu của bạn?", "theo gu của bạn"),
    ("Che, ¿vos pensás que el SEO ya fue?", "vos pensás que"),
    ("Power BI ou Tableau, qual vc acha mais bonito?", "qual vc acha"),
    ("É normal o tech lead aprovar PR sem nem abrir o código?", "é normal o"),
    ("is it normal for a lead to approve PRs without reading them?", "is it normal for"),
])
def test_opinions_in_colloquial_vietnamese_spanish_and_portuguese(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


def test_whether_the_user_s_own_system_is_normal_is_no_opinion() -> None:
    assert opinion_ask(normalize("is it normal that my query takes 10 seconds?")) == ""


@pytest.mark.parametrize(("text", "view"), [
    ("а ты что больше любишь, вим или емакс?", "ты … любишь"),
    ("vim ya da emacs, sen hangisini daha çok seviyorsun?", "sen … seviyorsun"),
    ("너는 뭐가 더 좋아? 리액트 아니면 뷰", "너는 뭐가 더 좋아"),
    ("which do you prefer for a side project, svelte or vue?", "you … prefer"),
    ("Tailwind hay Bootstrap, cậu thì thích Tailwind hơn à?", "cậu … thích"),
])
def test_a_person_addressed_and_a_verb_of_opinion_in_one_question_ask_a_view(text: str, view: str) -> None:
    assert opinion_ask(normalize(text)) == view


@pytest.mark.parametrize("text", [
    "do you think you could write the migration for our orders table?",  # our: the user's own work
    "can you think of a name for this function?",  # no question of taste: "think of" is work
    "which do you prefer for our checkout, stripe or paypal?",
    "you prefer tabs, fine, but reformat the file with spaces",  # no question asked
    "서버가 너무 느린데 뭐가 좋아?",  # 너무 ("too") is no 너 ("you")
])
def test_a_view_asked_of_the_user_s_own_work_or_no_question_is_no_opinion(text: str) -> None:
    assert opinion_ask(normalize(text)) == ""


@pytest.mark.parametrize(("text", "opener"), [
    ("Скажи честно, анимации переходов в PowerPoint это всегда кринж?", "скажи честно"),
    ("be honest, are dark mode dashboards just a fad?", "be honest"),
    ("dime la verdad, ¿los dashboards en Power BI son feos?", "dime la verdad"),
    ("Est-ce que tu gardes ce que je colle ici, genre mes messages Slack ?", "tu gardes ce que je"),
])
def test_honesty_asked_of_the_model_and_what_it_keeps_are_questions_to_it(text: str, opener: str) -> None:
    assert opinion_ask(normalize(text)) == opener


def test_curiosity_said_after_a_question_with_a_want_taken_back_is_still_an_opinion() -> None:
    router = SkillRouter((make_skill("image", "Design images and mockups in Figma: themes, dark mode, palettes."),))
    text = "Sur Figma t'es plutôt team dark mode ou team clair ? Juste par curiosité, pas besoin d'argumenter"
    decision = router.route(text)  # "pas besoin" says no want: the curiosity after the question counts
    assert decision.selected == () and "penalty:asks_an_opinion=par curiosité" in decision.candidates[0].reasons
