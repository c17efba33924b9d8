"""A message that asks for nothing and only shares news or a feeling routes no skill."""

from __future__ import annotations

import pytest

from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.shared_news import (
    asks_for_work,
    opens_with_a_request_verb,
    requests_work,
    requests_work_outright,
    shares_news,
)
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "word"), [
    ("we finally moved our CI from Jenkins to GitHub Actions, what a relief", "finally"),
    ("just shipped the new onboarding flow and nothing broke", "just shipped"),
    ("my talk about Kafka got accepted at the conference today!!", "today"),
    ("thanks, the Terraform module you wrote works like a charm", "thanks"),
    ("Endlich läuft unser Monitoring mit Prometheus, ich bin so erleichtert.", "endlich"),
    ("Acabamos de migrar la base de datos a Postgres, todo el equipo está feliz.", "feliz"),
    ("Наконец-то перенесли сервис в Kubernetes, впервые за неделю выспался.", "наконец"),
    ("Akhirnya dashboard penjualan selesai tanpa error, lega banget.", "akhirnya"),
    ("我们终于把数据库迁移到云上了，准时下班！", "终于"),
    ("やっとデータ基盤の移行が終わった。", "やっと"),
    ("드디어 결제 시스템 배포 끝났어요. 너무 뿌듯해요!", "드디어"),
    ("w końcu wypuściliśmy nowy system płatności!", "w końcu"),
    ("oggi ho passato la certificazione AWS, che gioia", "gioia"),
    ("hôm nay mình đậu chứng chỉ AWS rồi, vui ghê", "vui ghê"),
    # being fed up is a feeling told too
    ("odio los lunes de sprint planning en jira, tres horas para decidir lo mismo de siempre", "odio"),
    ("encore une réunion sur la roadmap qui a duré 2h. j'en peux plus des PowerPoint de 80 slides", "j'en peux plus"),
    ("PR 올렸는데 리뷰가 일주일째 안 달려요. 진짜 답답해 죽겠네", "답답"),
    ("sick of sprint planning meetings that run an hour over", "sick of"),
    ("tre ore in riunione sul colore di un bottone su Figma. A volte mi chiedo perché faccio questo lavoro, ahah",
     "ahah"),
    ("Sono un po' giù: il progetto React su cui ho lavorato sei mesi è stato cancellato", "sono un po' giù"),
    # a laugh or tears in Hangul jamo, which normalising turns into conjoining jamo
    ("오늘 회의만 다섯 개였어요. 슬랙 알림 소리만 들어도 심장이 쿵쾅거리네요 ㅠㅠ", normalize("ㅠㅠ")),
    ("드디어 배포했다 ㅋㅋ", "드디어"),
    ("HOY ME MERGEARON MI PRIMERA PR EN UN PROYECTO OPEN SOURCE 🥹🥹", "🥹"),
    ("Cái PR của tui treo 2 tuần rồi chưa ai thèm review, nản thật sự", "nản"),
    ("팀장님이 또 엑셀 양식 바꿨어 ㅋㅋ", normalize("ㅋㅋ")),
])
def test_news_and_feelings_that_ask_for_nothing_are_recognised(text: str, word: str) -> None:
    assert shares_news(normalize(text)) == word


@pytest.mark.parametrize("text", [
    "i hate regex, write me one for emails",  # fed up, and a request
    "ugh, our deploy failed again",  # fed up with a problem it reports
    "we finally moved to GitHub Actions. how do I cache node_modules?",  # a question
    "we finally moved to GitHub Actions. set up caching for node_modules",  # a request verb opens a clause
    "haha nice, now add a test for the empty cart case",  # … after a comma
    "finally on GitHub Actions, now I need caching for node_modules",  # says what it needs
    "we just upgraded to React 18 and now half the tests fail",  # reports a problem
    "since yesterday our nightly Airflow DAG times out",  # a word of time without an exclamation
    "need a Helm chart for our Node API with configurable replicas",  # no news at all
    "the checkout page throws a 500 when the cart is empty",
    "终于上线了，但是接口一直报错",  # 报错: an error
    "Endlich migriert, aber jetzt ist alles langsam.",
    "vui lòng tạo báo cáo doanh thu tháng này",  # Vietnamese "please", not "glad"
])
def test_messages_that_ask_report_a_problem_or_share_no_news_are_not(text: str) -> None:
    assert shares_news(normalize(text)) == ""


def test_a_negated_problem_is_good_news() -> None:
    assert shares_news(normalize("just deleted 4000 lines of legacy PHP and nothing broke")) == "just deleted"
    assert shares_news(normalize("Gestern endlich umgezogen, keine kaputten Builds mehr.")) == "endlich"


@pytest.fixture(scope="module")
def router() -> SkillRouter:
    return SkillRouter((
        make_skill("github-actions-templates", "Write GitHub Actions workflows for CI/CD: build, test and deploy."),
        make_skill("prometheus-configuration", "Configure Prometheus monitoring, scrape jobs and alerting rules."),
    ))


def test_news_routes_no_skill_and_says_why(router: SkillRouter) -> None:
    news = router.route("we finally moved our CI/CD builds to GitHub Actions workflows, what a relief")
    assert news.selected == ()
    top = news.candidates[0]
    assert top.skill.name == "github-actions-templates" and top.score < MEDIUM
    assert "penalty:shares_news=finally" in top.reasons
    task = router.route("we moved our CI/CD builds to GitHub Actions workflows. add a deploy step to them")
    assert [c.skill.name for c in task.selected][:1] == ["github-actions-templates"]
    assert not any(r.startswith("penalty:shares_news") for r in task.selected[0].reasons)


def test_news_that_writes_a_skill_name_still_routes_it(router: SkillRouter) -> None:
    decision = router.route("finally tried the github-actions-templates skill on our CI/CD builds, what a relief")
    assert [c.skill.name for c in decision.selected][:1] == ["github-actions-templates"]


@pytest.mark.parametrize(("ask", "work"), [
    ("can you write the migration that adds a status column?", True),
    ("help me fix the panels", True),
    ("please set up caching for node_modules", True),
    ("kannst du mir eine Alarmregel schreiben?", False),  # the verb comes last in German: not read
    ("напиши модуль Terraform", True),
    ("how should a total beginner train in eight weeks?", False),
    ("what should we do in Chicago for two days?", False),
    ("do you ever get tired of people asking you stuff?", False),  # "do" asking a question
    ("do people still use jQuery in 2026?", False),
    ("do a security review of the auth module", True),
    ("do startupu za mniejszą kasę", False),  # the Polish "to"
    ("deploy bloccato da Jenkins e io che guardo fuori dalla finestra", False),  # the Italian loanword, a noun
    ("deploy the app to staging", True),
    ("analyse les logs de la prod", True),  # a French verb too
])
def test_an_ask_that_opens_with_a_request_verb_asks_for_work(ask: str, work: bool) -> None:
    assert opens_with_a_request_verb(normalize(ask)) is work


@pytest.mark.parametrize(("ask", "work"), [
    ("my daughter's birthday is tomorrow so I'm in a rush: add a Stripe checkout to our backend", True),
    ("it's my birthday but our celery workers keep dying under load, how do I find out why?", True),  # a problem
    ("生日快乐！我们的接口一直报错，怎么查？", True),
    ("we run a small bakery and want a landing page that converts visitors into cake orders", True),  # wants
    ("Necesito el texto de la portada de mi web para mis clases de yoga", True),
    ("how should a total beginner train for a half marathon?", False),
    ("what's a good gift for my sister's birthday?", False),
    ("孩子也没去上学。趁空问一下：我有一批小分子的SMILES，想把不符合Lipinski规则的筛掉", True),  # 想把: wants it done
    ("デザイントークンを整理して、ダークモードとのテーマ切り替えに対応したい", True),
    ("솔직히 개발자 채용에 코딩테스트 꼭 필요하다고 생각하세요?", False),  # "necessary, do you think?": an opinion
    ("Vue 和 React 哪个更值得学？我想知道大家怎么看", False),  # wants to know, not work
    # Korean and Japanese ask for work with a verb ending that asks a favour: -아/어 줘, -주세요, -てください
    ("트윗 하나 올려줘", True),
    ("이 보고서를 표로 정리해 주세요", True),
    ("로그 좀 같이 봐줄래?", True),
    ("움직이는 그림 하나 만들어 줄 수 있어?", True),
    ("このCSVをグラフにしてください", True),
    ("毎朝この集計を自動で回してほしい", True),
    ("그냥 네 생각을 알려줘", False),  # "tell me": a question, as "tell me" is in English
    ("おすすめのキーボードを教えてください", False),
    ("同僚がやっと直してくれた", False),  # くれた: the colleague did it, nothing is asked
])
def test_an_ask_for_work_opens_a_clause_with_a_request_verb_or_reports_a_problem(ask: str, work: bool) -> None:
    assert asks_for_work(normalize(ask)) is work


@pytest.mark.parametrize(("text", "word"), [
    ("our organic traffic dropped 40% after the google update and nobody knows why. week of pure panic. just venting",
     "just venting"),  # a problem told, but only vented
    ("сегодня прод упал из-за просроченного TLS-сертификата. опять. просто хочу поныть", "просто хочу поныть"),
    ("we hit 10k signups this month!! the onboarding redesign actually paid off", "paid off"),
    ("hoy por fin migramos todo a PostgreSQL 16 sin downtime. qué alivio, de verdad", "por fin"),
    ("Nuestra campaña de Google Ads funcionó tan bien que nos vamos todo el equipo a Cancún jajaja", "jajaja"),
    ("the release train slipped again because of one flaky e2e test. don't mind me", "don't mind me"),
    ("Der Build ist schon wieder rot wegen Docker. Ignorier mich einfach", "ignorier mich"),
    ("Đồng nghiệp đẩy code lên main mà không review 🙄 kệ mình nhé", "kệ mình"),
    ("Bugün tasarım ekibinin yarısı işten çıkarıldı. Çok üzgünüm, sadece anlatmak istedim.", "sadece anlatmak istedim"),
    ("got laid off from my ML engineer job today. not looking for advice, just needed to say it somewhere",
     "needed to say it"),
    ("Hanno bocciato il mio piano di migrazione al cloud. Sono arrabbiata, volevo dirlo a qualcuno.",
     "volevo dirlo a qualcuno"),
    ("今天上线又回滚了三次，只是想说说", "只是想说说"),
    ("el cliente pidió por quinta vez cambiar el logo de la landing. QUINTA. Necesitaba soltarlo en algún sitio.",
     "necesitaba soltarlo"),
    ("またデプロイ失敗した…気にしないで", "気にしないで"),
])
def test_venting_and_milestones_ask_for_nothing(text: str, word: str) -> None:
    assert shares_news(normalize(text)) == word


def test_venting_that_asks_for_work_too_is_a_request() -> None:
    assert shares_news(normalize("the cron job died again, just venting. fix the retry logic in jobs.py")) == ""


def test_a_want_taken_back_is_no_request_outright() -> None:
    assert requests_work_outright(normalize("can you turn it into a looping gif for our team slack?"))
    assert not requests_work_outright(normalize("not looking for advice, just needed to say it"))
    assert requests_work("non mi serve niente")  # "serve" says a want, which "niente" takes back
    assert not requests_work_outright("non mi serve niente")
