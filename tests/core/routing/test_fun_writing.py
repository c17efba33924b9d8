"""An ask for a poem, a joke or a bedtime story routes no skill, whatever its topic."""

from __future__ import annotations

import pytest

from proxy.core.routing.fun_writing import fun_writing
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "kind"), [
    ("write a limerick about our database migration to aurora", "a limerick"),
    ("compose a short haiku about prometheus alerting rules", "a short haiku"),
    ("joke about microservices please", "joke about"),
    ("need a funny team name for our data platform squad", "funny team name"),
    ("make up a bedtime story about a robot that fixes websites", "a bedtime story"),
    ("write a toast for my sister's wedding, she builds data pipelines", "toast for my sister's wedding"),
    ("Erzähl mir einen Witz über Datenbanken.", "witz"),
    ("Escríbeme un poema sobre un servidor que nunca duerme.", "poema"),
    ("Raconte-moi une histoire drôle sur un serveur qui refuse de redémarrer.", "histoire drôle"),
    ("Напиши стих про Kubernetes", "стих"),
    ("Bana Docker hakkında bir fıkra anlat", "fıkra"),
    ("写一首关于数据库迁移的诗", "一首关于数据库迁移的诗"),
    ("Kubernetesについての俳句を作って", "俳句"),
    ("쿠버네티스에 관한 농담 하나 해줘", "농담"),
    ("쿠버네티스에 대한 시 써줘", "시 써"),
    ("opowiedz kawał o programistach", "kawał o"),
    ("kể một câu chuyện cười về lập trình viên", "chuyện cười"),
])
def test_asks_for_fun_writing_are_recognised(text: str, kind: str) -> None:
    assert fun_writing(normalize(text)) == kind


@pytest.mark.parametrize("text", [
    "use haiku for the summarization step and sonnet for the final answer",  # models, not poems
    "add a toast for failed uploads in the React app",  # a UI notification
    "write the user story about password reset",
    "wiersz poleceń nie działa po aktualizacji",  # Polish: the command line
    "wklej ten kawał kodu do pliku config.py",  # Polish: a chunk of code
    "표시 써 놓은 부분만 고쳐 줘",  # Korean: 표시 (a mark) holds 시
    "write a landing page for our song-writing app",
])
def test_work_that_shares_a_word_with_fun_writing_is_not(text: str) -> None:
    assert fun_writing(normalize(text)) == ""


def test_fun_writing_about_a_skill_topic_routes_nothing_and_says_why() -> None:
    router = SkillRouter((make_skill("database-migration", "Write and run database migrations: schema changes, "
                                     "data backfills and rollbacks."),))
    fun = router.route("write a limerick about our database migration with schema changes and rollbacks")
    assert fun.selected == ()
    top = fun.candidates[0]
    assert top.score < MEDIUM and "penalty:asks_for_fun_writing=a limerick" in top.reasons
    work = router.route("write our database migration with schema changes and rollbacks")
    assert [c.skill.name for c in work.selected] == ["database-migration"]


def test_a_korean_fun_word_inside_a_longer_word_is_not_one() -> None:
    assert fun_writing("중소 물류회사 대표들한테 보낼 콜드메일 써줘. 우리 제품은 배차 자동화 SaaS야") == ""  # 자동화
    assert fun_writing("대시보드 표시를 바꿔줘") == ""  # 표시를: a display
    assert fun_writing("우리 팀에 대한 시를 써줘") == "시를"
    assert fun_writing("동화 하나 써줘") == "동화"
