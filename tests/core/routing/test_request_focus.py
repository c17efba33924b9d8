"""What is being asked: the asking part of a message apart from the scene it sets, and the router
that weighs it (a skill matched only by the scene is not routed)."""

from __future__ import annotations

import pytest

from proxy.core.routing.request_focus import clauses, request_focus
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import CATALOG, make_skill, names


@pytest.mark.parametrize(("text", "ask", "scene"), [
    # a pivot turns the conversation: after it is the ask, before it the scene
    ("our grafana dashboard went viral on reddit lol… anyway, what's a good name for a puppy?",
     "what's a good name for a puppy?", "our grafana dashboard went viral on reddit lol..."),
    ("Unsere Postgres-Migration ist durch. Übrigens, kennst du ein gutes Buch über Stoizismus?",
     "kennst du ein gutes buch über stoizismus?", "unsere postgres-migration ist durch."),
    ("昨天用 docker 部署了新版本。对了，周末去哪里爬山比较好？", "周末去哪里爬山比较好?",
     "昨天用 docker 部署了新版本。"),
    ("hoje migrei o banco para postgres, enfim, qual filme você recomenda?", "qual filme você recomenda?",
     "hoje migrei o banco para postgres,"),
    # a question after a statement that sets the scene
    ("I gave a talk at PyCon, how do I calm my nerves?", "how do i calm my nerves?", "i gave a talk at pycon,"),
    ("my postgres query is slow. which index should I add?\nthe table has 40M rows",
     "which index should i add? the table has 40m rows", "my postgres query is slow."),
    ("I wrote a long React component today and my wrists hurt, any stretches you'd recommend?",
     "any stretches you'd recommend?", "i wrote a long react component today and my wrists hurt,"),
    # a question that stands on its own, then statements and no other question: they set a scene after it
    ("is imposter syndrome ever going away? I'm a junior frontend dev on a team of staff engineers",
     "is imposter syndrome ever going away?", "i'm a junior frontend dev on a team of staff engineers"),
    # "is it bad to …" and "one of them" point inside the question, not back at the scene
    ("working on a react native app all night. is it bad to drink 5 coffees a day?",
     "is it bad to drink 5 coffees a day?", "working on a react native app all night."),
    ("we launched on product hunt a year ago. any cake for 12 people where one of them is gluten free?",
     "any cake for 12 people where one of them is gluten free?", "we launched on product hunt a year ago."),
    # CJK is written without spaces: a long run names several things
    ("我们组昨天终于把数据库迁到 PostgreSQL 了，大家都累坏了。有没有适合十来个人的轻松团建活动推荐？",
     "有没有适合十来个人的轻松团建活动推荐?", "我们组昨天终于把数据库迁到 postgresql 了,大家都累坏了。"),
])
def test_the_ask_and_the_scene_are_told_apart(text: str, ask: str, scene: str) -> None:
    focus = request_focus(text)
    assert (focus.ask, focus.scene) == (ask, scene)
    assert focus.why in ("pivot", "question", "question first")


@pytest.mark.parametrize("text", [
    "how do I add ~/bin to my $PATH on zsh?",  # one clause
    "I have a CSV of sales by region. Can you chart it?",  # the question asks about the scene ("it")
    "a lot of people cancel in month 2. what should we do about that?",  # "that"
    "how do I speed this up? the query scans 40M rows",  # a first question about "this": what follows details it
    "how do I chart sales per month? what colours should it use?",  # a later question asks about the first
    "write a python script that parses nginx logs, and make it handle gzip files",  # no question: all of it asks
    "5 test files are failing in totally unrelated modules. split them up",  # "unrelated" without a pause
    "write a short, bref summary of the release",  # a pivot that is also an ordinary word, without a pause
    "landing page gets 8k visits a month. no idea what's wrong",  # a statement, no question
    "想把 whisper 模型部署成一个 GPU 推理接口，但不想自己维护服务器，有什么方案？",  # "what options": one thing
    "我手上有一份销售数据 csv。怎么用 polars 把它按月汇总？",  # 它 (it) points back at the CSV
    "我们的网站用 Next.js 写的。这个页面怎么做 SEO 优化？",  # 这个 (this)
    "売上の CSV があります。pandas でこれを月ごとに集計するには？",  # これ (this)
    # Indonesian points back with -nya on a listed word: grafiknya (its chart), langkahnya (its steps)
    "Aku punya file Excel data penjualan setahun, tolong bantu analisis trennya dan buat grafiknya",
    "Saya mau pindah database dari MySQL ke PostgreSQL tanpa downtime, langkahnya apa saja?",
    # Turkish asks with its last word (istiyorum: I want, gerekiyor: it is needed), so the first clause asks too
    "Pazarın büyüklüğünü hesaplamak istiyorum, toplam pazar ne kadar?",
    "Yeni uygulamamızın lansmanını planlamam gerekiyor, adım adım bir plan çıkarır mısın?",
    # a Turkish request holds its question words: "hangi … olduğunu göstermek istiyorum" is "I want to show which …"
    "Modelimin tahminlerini açıklamak, hangi özelliklerin önemli olduğunu göstermek istiyorum",
    # a comma before "that", "if", "whether" sets off no ask of its own
    "ist es normal, dass ich nachts von Kubernetes-Pods träume?",
    "is it ok, if I push the release to monday?",
    "¿es normal, que el pod se reinicie cada hora?",
])
def test_a_message_that_does_not_split_is_all_ask(text: str) -> None:
    focus = request_focus(text)
    assert focus.scene == "" and focus.why == "whole"


def test_an_indonesian_adverb_in_nya_does_not_point_back() -> None:
    focus = request_focus("Biasanya saya pakai excel. Bagaimana cara membuat grafik batang di python?")
    assert focus.why == "question" and focus.scene == "biasanya saya pakai excel."


def test_clauses_break_at_sentences_and_before_inner_questions() -> None:
    assert clauses("we moved to k8s. it broke, but how do i roll back? thanks") == [
        "we moved to k8s.", "it broke, but", "how do i roll back?", "thanks"]
    assert clauses("draw flow fields in p5.js with 1.5x speed") == ["draw flow fields in p5.js with 1.5x speed"]


def test_an_emoji_before_more_text_ends_a_sentence() -> None:
    # people end a sentence with an emoji instead of a full stop: the feeling closes what it follows
    assert clauses("lỡ tay reset --hard mất mấy commit 😭 có cách nào lấy lại không?") == [
        "lỡ tay reset --hard mất mấy commit 😭", "có cách nào lấy lại không?"]
    assert clauses("tests pass ✅ now write the docs") == ["tests pass ✅", "now write the docs"]
    assert clauses("ship it 🚀") == ["ship it 🚀"]


@pytest.mark.parametrize("text", [
    "Write a Cypher query for Neo4j, which finds the common friends of two users",
    "Napisz mi zapytanie Cypher do Neo4j, które znajdzie wspólnych znajomych dwóch użytkowników",
    "Écris une requête Cypher, qui trouve les amis communs de deux utilisateurs",
])
def test_a_relative_clause_after_a_comma_is_no_inner_question(text: str) -> None:
    assert clauses(normalize(text)) == [normalize(text)]
    assert request_focus(text).why == "whole"


def test_a_relative_pronoun_in_a_sentence_that_asks_opens_an_inner_question() -> None:
    assert clauses("i have a csv of monthly sales, which chart fits it best?") == [
        "i have a csv of monthly sales,", "which chart fits it best?"]


def test_a_long_pasted_message_is_all_ask() -> None:
    text = "error: connection refused\n" * 100 + "anyway, what's a good name for a cat?"
    assert request_focus(text).why == "whole"


@pytest.fixture(scope="module")
def router() -> SkillRouter:
    return SkillRouter(CATALOG)


def test_a_skill_matched_only_by_the_scene_is_not_routed(router: SkillRouter) -> None:
    plain = router.route("our grafana dashboards for latency and error rates went viral")
    assert names(plain.selected)[:1] == ["grafana-dashboards"]
    chatter = router.route("our grafana dashboards for latency and error rates went viral. anyway, "
                           "what's a good name for a puppy?")
    assert chatter.selected == ()
    top = chatter.candidates[0]
    assert top.skill.name == "grafana-dashboards" and top.score < MEDIUM
    assert "penalty:matched_only_the_scene" in top.reasons
    assert any(r.endswith("[scene]") for r in top.reasons)


def test_a_skill_the_ask_matches_still_routes_with_the_scene_counted(router: SkillRouter) -> None:
    decision = router.route("we run everything on kubernetes clusters. how do I add a latency panel to our "
                            "grafana dashboards?")
    assert names(decision.selected)[:1] == ["grafana-dashboards"]
    reasons = decision.selected[0].reasons
    assert "penalty:matched_only_the_scene" not in reasons and not any("[scene]" in r for r in reasons)
    assert any("[scene]" in r for c in decision.candidates if c.skill.name == "k8s-deploy" for r in c.reasons)


def test_a_name_written_only_in_the_scene_gets_no_name_bonus(router: SkillRouter) -> None:
    decision = router.route("yesterday I used gh-fix-ci on my branch. anyway, what's a good name for a puppy?")
    assert decision.selected == ()
    assert all("exact:name=gh-fix-ci" not in c.reasons for c in decision.candidates)


def test_an_ask_that_names_nothing_asks_about_the_scene(router: SkillRouter) -> None:
    # no word of the ask is a catalog term or an everyday topic: it asks about the scene ("what do
    # I send them and when?"), which then counts as the ask
    decision = router.route("slow database queries with indexes and query plans. wxyzzy qwrtp?")
    assert names(decision.selected)[:1] == ["db-tuning"]
    assert "penalty:matched_only_the_scene" not in decision.selected[0].reasons
    spanish = router.route("Tengo consultas lentas en la base de datos, con índices y planes. ¿Qué les hago y cuándo?")
    assert names(spanish.selected)[:1] == ["db-tuning"]


def test_an_ask_after_a_pivot_leaves_the_scene_even_when_it_names_nothing_known(router: SkillRouter) -> None:
    # "anyway," turns away from the scene, so an ask in words the router cannot read ("kenapa daun
    # monstera aku pada kuning ya?", why are my monstera's leaves yellow) is not about it
    decision = router.route("slow database queries with indexes and query plans. anyway, wxyzzy qwrtp?")
    assert decision.selected == ()
    assert "penalty:matched_only_the_scene" in decision.candidates[0].reasons


def test_an_ask_about_an_everyday_topic_names_something_of_its_own(router: SkillRouter) -> None:
    decision = router.route("slow database queries with indexes and query plans all week. "
                            "how do I calm my nerves?")
    assert decision.selected == ()
    assert "penalty:matched_only_the_scene" in decision.candidates[0].reasons


def test_an_ask_that_adds_only_body_words_after_a_pivot_does_not_carry_the_scene() -> None:
    # the ask after "btw" meets `hour` only in a heading of the dashboard skill: the scene carries it
    router = SkillRouter((make_skill("grafana-dashboards", "Build Grafana dashboards and alerts for service metrics.",
                                     headings=("Requests per hour", "Latency panels")),))
    chatter = router.route("grafana alerts and dashboards kept paging me all night. btw, is it normal for a cat to "
                           "sleep 16 hours a day?")
    assert chatter.selected == ()
    top = chatter.candidates[0]
    assert top.score < MEDIUM and "penalty:ask_matched_only_the_body" in top.reasons
    work = router.route("grafana alerts kept paging me all night. btw, how do I tune the alerts on our dashboards?")
    assert names(work.selected) == ["grafana-dashboards"]
    assert "penalty:ask_matched_only_the_body" not in work.selected[0].reasons


def test_a_generic_ask_asks_about_the_scene_and_its_everyday_life() -> None:
    # "any creative ideas?" names no topic of its own: the whole message asks, the girlfriend included
    router = SkillRouter((make_skill("brainstorming", "Creative ideas and brainstorming for product plans and "
                                     "proposals."),))
    life = router.route("I'm planning to propose to my girlfriend next month. any creative ideas?")
    assert life.selected == ()
    assert "penalty:everyday_topic=girlfriend" in life.candidates[0].reasons
    work = router.route("we're planning the product proposal for the board next month. any creative ideas?")
    assert names(work.selected) == ["brainstorming"]


def test_a_question_for_no_work_after_a_scene_of_everyday_life_leaves_the_scene_behind() -> None:
    router = SkillRouter((make_skill("team-composition-analysis", "Plan team composition for startup teams: roles, "
                                     "hiring and team capacity.", headings=("Weekly capacity", "Eight week plans")),))
    life = router.route("Our startup team is running a half marathon for charity. how should a total beginner "
                        "train in eight weeks?")
    assert life.selected == ()
    assert "penalty:ask_matched_only_the_body" in life.candidates[0].reasons
    work = router.route("Our startup team is running a half marathon for charity. can you plan the team capacity "
                        "for the next eight weeks?")
    assert names(work.selected) == ["team-composition-analysis"]
