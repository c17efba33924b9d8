"""An ask about how to feel, or how to talk to someone, routes no skill, whatever its topic."""

from __future__ import annotations

import pytest

from proxy.core.routing.personal_asks import personal_ask
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.shared_news import opens_with_a_request_verb, requests_work
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "phrase"), [
    ("I write Solidity for a living and my grandma asked if I'm a criminal. what should I tell her?", "tell her"),
    ("how do I make my manager see it without bragging?", "make my manager see"),
    ("how do I set boundaries with work Slack?", "set boundaries"),
    ("my PR got 47 comments. I try not to take it personally", "take it personally"),
    ("the migration slipped twice, am I overreacting?", "am i overreacting"),
    ("how can I deal with my manager micromanaging our sprint board", "how can i deal with my manager"),
    ("after the outage I can't stop checking slack at night", "stop checking slack"),
    ("Wie sag ich meiner Mutter, dass ich Kubernetes-Admin bin?", "sag ich meiner"),
    ("¿Cómo le explico a mi jefe que el despliegue falló?", "le explico a mi"),
    ("comment dire à ma mère ce que je fais ?", "dire à ma"),
    ("我该怎么跟我妈解释我是做数据库的？", "怎么跟我妈解释"),
    ("上司に説明するにはどうすればいい？", "上司に説明"),
    ("엄마한테 어떻게 설명하죠?", "엄마한테 어떻게 설명"),
    ("the k8s cluster finally went green after a week of hell. what do normal people do to unwind", "unwind"),
    ("I broke prod for 20 minutes yesterday and can't stop replaying it. how do I let it go", "can't stop replaying"),
    ("Reviewer 2 called my paper trivial. I feel like an idiot", "i feel like an idiot"),
    ("How do I push back on my lead without it becoming a thing?", "push back on my lead"),
    ("产品终于上线了，大家想一起庆祝一下，有什么好点子吗", "庆祝"),
    ("is it normal to dream about SQL queries after a week of query tuning?", "is it normal to dream"),
    ("产品上线那天我哭了，正常吗？", "我哭了"),
    # the other languages the router reads
    ("Мы зарелизили приложение! Как отпраздновать с командой?", "отпраздновать"),
    ("ilk açık kaynak PR'ım merge edildi!!! nasıl kutlasam", "kutlasam"),
    ("Bugün code review'da çok suçlu hissettim, nasıl telafi ederim?", "suçlu"),
    ("gw abis presentasi pake powerpoint, gimana biar next time lebih pede?", "lebih pede"),
    ("j'ai raté mon entretien technique sur une question SQL, comment je me remets de ça", "me remets"),
    ("ist es normal, dass ich nachts von Kubernetes träume?", "normal, dass ich"),
    ("Jak powiedzieć szefowi, że migracja się opóźni?", "powiedzieć szefowi"),
    ("코드리뷰에서 코멘트 40개 받았어요. 자존감이 바닥이에요", "자존감"),
    ("팀장님이 제 PR에만 코멘트를 많이 다시는데 제가 예민한 건가요", "예민한 건가"),
    ("il mio collega fa merge senza code review... come glielo dico senza litigare?", "come glielo dico"),
    ("come fate voi a staccare dopo un lancio andato male?", "a staccare"),
    ("odejść z korpo do startupu? co byście zrobili na moim miejscu?", "na moim miejscu"),
    ("lam OT toi 10h dem vi deadline release, co ai thay binh thuong ko", "binh thuong ko"),
    # telling in the first person, and feelings, where each language says them
    ("come dico al mio capo che voglio cambiare team?", "dico al mio"),
    ("como conto pra minha mãe que larguei o emprego?", "conto pra minha mãe"),
    ("patronuma zam istediğimi nasıl söylerim?", "patronuma zam istediğimi nasıl"),
    ("팀장님한테 퇴사한다고 어떻게 말하죠?", "팀장님한테 퇴사한다고 어떻게 말"),
    ("sejak pindah tim aku merasa nggak dianggap", "aku merasa"),
    ("我在公司感觉自己很没用", "感觉自己很没用"),
    # calming one's nerves
    ("jak się uspokoić przed wystąpieniem?", "się uspokoić"),
    ("tengo una demo mañana, ¿cómo controlo los nervios?", "los nervios"),
    ("明天要答辩，怎么让自己冷静下来？", "冷静下来"),
])
def test_asks_how_to_feel_or_talk_to_someone_are_recognised(text: str, phrase: str) -> None:
    assert personal_ask(normalize(text)) == phrase


@pytest.mark.parametrize("text", [
    "tell me how to configure nginx rate limiting",
    "how do I tell if my pods are healthy",
    "how do I tell them apart in the logs",
    "make them see the new column in the report",  # a report's readers, not people close to the user
    "how do I deal with this error in the worker",
    "is this normal? the pods restart every minute",
    "tell the team the deploy is at 5, in a short announcement",
    "the cart page feels empty and slow after the redesign",  # a page, not a person
    "how do I move on to the next step of the migration",
    "the dates are wrong, how do I correct them in pandas?",  # "them" is the dates
    "how do I reply to them in bulk from the CLI",
    "Escribe una consulta SQL que sume las ventas por mes",
    "Jak zbudować walidację jakości danych w naszym potoku ETL?",
    "Bagaimana cara menyimpan password database di pipeline CI dengan aman?",
    "como falo com meu time sobre o novo processo de deploy?",  # a team is told in an announcement
])
def test_work_that_shares_words_with_a_personal_ask_is_not_one(text: str) -> None:
    assert personal_ask(normalize(text)) == ""


def test_a_statement_of_what_the_user_does_is_no_request() -> None:
    assert not opens_with_a_request_verb("i write solidity smart contracts for a living")
    assert opens_with_a_request_verb("can i write the contract tests first")
    assert opens_with_a_request_verb("i need to write the contract tests first")
    assert not requests_work("i just want to know how not to take it personally")
    assert requests_work("convince my boss, write me a one-page proposal")


def test_a_personal_ask_about_a_skill_topic_routes_nothing_and_says_why() -> None:
    router = SkillRouter((make_skill("solidity-security", "Audit Solidity smart contracts for security "
                                     "vulnerabilities: reentrancy, access control, overflow."),))
    personal = router.route("I audit Solidity smart contracts for reentrancy and my grandma thinks I'm a hacker. "
                            "what should I tell her?")
    assert personal.selected == ()
    top = personal.candidates[0]
    assert top.score < MEDIUM and "penalty:asks_how_to_feel_or_act=tell her" in top.reasons
    work = router.route("I audit Solidity smart contracts for reentrancy and my grandma thinks I'm a hacker. "
                        "can you check this contract for reentrancy?")
    assert [c.skill.name for c in work.selected] == ["solidity-security"]


def test_a_feeling_told_in_the_scene_counts_when_the_ask_names_nothing() -> None:
    router = SkillRouter((make_skill("code-review-excellence", "Code review practices: reviewing pull requests, "
                                     "review comments and feedback."),))
    shy = router.route("코드리뷰에서 시니어한테 코멘트 40개 받았어요... 자존감이 바닥이에요. "
                       "주니어 때 다들 이런 거 겪나요?")
    assert shy.selected == ()
    assert any(r.startswith("penalty:asks_how_to_feel_or_act=자존감") for r in shy.candidates[0].reasons)
    # a feeling in the scene, then an ask that names work of its own: the work routes
    work = router.route("I feel so stupid about it. Can you review this pull request and write review comments?")
    assert [c.skill.name for c in work.selected] == ["code-review-excellence"]


@pytest.mark.parametrize(("text", "phrase"), [
    ("deploy bloccato da Jenkins e io che sogno il mare. Dimmi qualcosa per tirarmi su.", "per tirarmi su"),
    ("the release slipped again, cheer me up", "cheer me up"),
    ("Build kaputt, Kaffee leer. Muntere mich auf!", "muntere mich auf"),
    ("sprint review poszło fatalnie, pociesz mnie", "pociesz mnie"),
    ("上线又被回滚了，安慰我一下", "安慰我"),
])
def test_cheering_the_user_up_is_a_personal_ask_in_every_language(text: str, phrase: str) -> None:
    assert personal_ask(normalize(text)) == phrase


def test_saying_something_to_a_person_is_a_personal_ask() -> None:
    text = "the new junior got teary after a code review. im not her manager, should i say something to her?"
    assert personal_ask(normalize(text)) == "say something to her"


def test_saying_it_tactfully_in_vietnamese_is_a_personal_ask() -> None:
    text = "ny mình làm designer, tối nào cũng ôm Figma tới 12h. nói sao cho khéo mà ko thành cãi nhau đây"
    assert personal_ask(normalize(text)) == "nói sao cho khéo"


@pytest.mark.parametrize(("text", "phrase"), [
    ("Коллега пишет язвительные комменты к моим PR. Как с ним нормально поговорить без скандала?",
     "с ним нормально поговорить"),
    ("발표 PPT만 만들면 떨려요. 긴장 줄이는 방법 있나요?", "긴장 줄이"),
])
def test_talking_to_a_colleague_and_calming_down_in_russian_and_korean(text: str, phrase: str) -> None:
    assert personal_ask(normalize(text)) == phrase


@pytest.mark.parametrize(("text", "phrase"), [
    ("mamie jak to wytłumaczyć, czym się zajmuję?", "wytłumaczyć … mamie"),
    ("a mi jefa, ¿cómo se lo explico sin que se enoje?", "explico … jefa"),
    ("à ma mère, comment je lui explique ce que je fais ?", "explique … lui"),
    ("meinem Chef, wie erkläre ich ihm das am besten?", "erkläre … chef"),
    ("mẹ mình hỏi mình làm nghề gì, giải thích sao cho mẹ hiểu?", "giải … mẹ"),
])
def test_a_person_and_a_verb_of_telling_in_one_question_in_any_order(text: str, phrase: str) -> None:
    assert personal_ask(normalize(text)) == phrase


@pytest.mark.parametrize("text", [
    "meinem Chef gefällt das Dashboard nicht. Erkläre die Kennzahlen im Bericht.",  # no question: a request
    "Tailwind hay Bootstrap, mẹ mình thích cái nào hơn?",  # thích is "like", no telling
    "dia bilang servernya error terus, gimana cara cek log-nya?",  # "he said": a problem reported
    "server chết ba lần rồi, nói sao với khách hàng?",  # ba is "three" here
])
def test_a_person_and_telling_outside_a_question_is_no_personal_ask(text: str) -> None:
    assert personal_ask(normalize(text)) == ""
