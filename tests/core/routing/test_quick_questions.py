"""A quick question (one short sentence: how to do one small thing) routes a skill only on a strong match."""

from __future__ import annotations

import pytest

from proxy.core.routing.quick_questions import device_setting, quick_question
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "opener"), [
    ("how do I add ~/bin to my $PATH on zsh?", "how do i"),
    ("how to read a csv file in pandas", "how to"),
    ("what's the keyboard shortcut to split the terminal in vscode?", "what's the"),
    ("command to extract a .tar.gz into a specific folder", "command to"),
    ("git command to delete a remote branch", "git command to"),
    ("sql to count orders per status from an orders table", "sql to"),
    ("pandas: drop rows where the 'email' column is null", "pandas:"),
    ("is there a way to make git remember my password?", "is there a way"),
    ("in vim how do I delete every line that contains TODO", "in vim how do i"),
    ("git: how do I see which branch I'm on?", "git: how do i"),
    ("write a python function that reverses a singly linked list", "write a python function"),
    ("write a regex for a US zip code", "write a regex"),
    ("write a SQL query that returns the top 5 customers by total order value", "write a sql query"),
    # in the other languages, an ask for the command or shortcut
    ("comando do git pra ver em qual branch eu to?", "comando"),
    ("lệnh git để xoá branch local là gì", "lệnh"),
    ("gitで直前のコミットメッセージだけ直すコマンドは？", "コマンド"),
    ("Tastenkürzel zum Einfügen ohne Formatierung?", "tastenkürzel"),
    ("какое сочетание клавиш для скриншота в винде?", "сочетание клавиш"),
    ("shortcut buat paste tanpa format apa ya?", "shortcut buat"),
    ("리눅스에서 폴더 용량 확인하는 명령어 뭐였지", "명령어"),
])
def test_quick_questions_are_recognised(text: str, opener: str) -> None:
    assert quick_question(normalize(text)) == opener


@pytest.mark.parametrize("text", [
    "our CI is red since this morning. how do I fix it?",  # two sentences: a problem reported first
    "can you write a Dockerfile for our FastAPI app",  # a request for work
    "stripped ELF, no source. help me work out what main() actually does",
    "how do I set up a blue-green deployment on kubernetes with argo rollouts, health checks, automatic rollback "
    "and a manual gate before the switch?",  # longer than a quick question
    "write a function that parses our invoices",  # about their own system
    "write a bash script that backs up my postgres db every night",
    "write a Dockerfile for a FastAPI app",  # not a small piece of code that stands alone
    # a how-to in another language is no quick question: a lexicon match rarely reaches high
    "Bagaimana cara menyimpan password database di pipeline CI dengan aman?",
    "Jak zbudować walidację jakości danych w potoku ETL?",
])
def test_other_asks_are_not_quick_questions(text: str) -> None:
    assert quick_question(normalize(text)) == ""


def test_a_quick_question_routes_only_a_strong_match() -> None:
    router = SkillRouter((make_skill("git-advanced-workflows", "Advanced git: interactive rebase, cherry-pick, bisect, "
                                     "worktrees and reflog recovery of lost commits and branches."),))
    quick = router.route("how do I rename a git branch?")
    assert quick.selected == ()
    assert any(r.startswith("penalty:quick_question=how do i") for r in quick.candidates[0].reasons)
    assert quick.candidates[0].score < MEDIUM
    task = router.route("Our release branch lost three commits after an interactive rebase. Recover them with "
                        "the reflog, then cherry-pick them onto main.")
    assert [c.skill.name for c in task.selected] == ["git-advanced-workflows"]


@pytest.mark.parametrize(("text", "device"), [
    ("comment on active le mode sombre sur Outlook web", "outlook"),
    ("Wie stelle ich am iPhone ein, dass Fotos als JPG gespeichert werden?", "iphone"),
    ("Come faccio a togliere la sincronizzazione di Google Drive dal portatile?", "google drive"),
    ("Telefonumda karanlık mod akşam otomatik açılsın istiyorum, nasıl ayarlanır?", "telefonumda"),
    ("lam sao tat che do tu dong cap nhat ung dung tren dien thoai android", "dien thoai"),
    ("微信怎么关掉朋友圈的广告", "微信"),
    ("Mac上怎么把默认浏览器改成Chrome", "浏览器"),
])
def test_a_setting_of_a_phone_computer_or_app_is_a_quick_question(text: str, device: str) -> None:
    assert device_setting(normalize(text)) == device


@pytest.mark.parametrize("text", [
    "add a dark mode toggle to our React Native app",  # work on the user's own product
    "implementa el modo oscuro en nuestra app con Tailwind",
    "Neo4j 裡想開一個帳號給實習生，看不到 User 節點上的手機號碼，要怎麼設定",  # a phone number is data
    "how do I convert 200 iPhone photos from HEIC to JPG at once?",  # no setting switched
    "my iPhone died during the demo. then the projector would not turn on. how do I stay calm next time?",
])
def test_other_asks_that_name_a_device_are_not_device_settings(text: str) -> None:
    assert device_setting(normalize(text)) == ""


def test_a_device_setting_routes_only_a_strong_match() -> None:
    router = SkillRouter((make_skill("design-system", "Design systems: tokens, theming, dark mode, light mode."),))
    work = router.route("add dark mode theming to the design system of our web app")
    assert [c.skill.name for c in work.selected] == ["design-system"]
    setting = router.route("comment on active le mode sombre sur Outlook web")
    assert setting.selected == ()
    assert "penalty:quick_question=outlook" in setting.candidates[0].reasons


@pytest.mark.parametrize(("text", "quick"), [
    ("jak cofnąć ostatni commit w git ale zostawić zmiany", "jak"),
    ("git 怎么撤销最近一次 commit，但保留改动", "git 怎么"),
    ("wie lösche ich einen remote branch in git?", "wie"),
    ("Wie schreibe ich Tests für mein Bash-Skript, das unsere Logdateien parst?", ""),  # their own script: work
    ("cómo hago un dashboard de ventas en Looker", ""),  # no command-line tool
])
def test_a_how_to_about_a_command_line_tool_is_a_quick_question_in_every_language(text: str, quick: str) -> None:
    assert quick_question(normalize(text)) == quick


@pytest.mark.parametrize("text", [
    "1 inch bằng bao nhiêu cm nhỉ, đang chỉnh kích thước slide PowerPoint",
    "how many ounces in a cup?",
    "cuántos km son 10 millas",
    "1インチは何センチ？",
    "1英寸等于多少厘米",
    "1 인치는 몇 센치야?",
    "ile to jest 5 stóp w metrach?",
    "10 miles in km",
])
def test_a_conversion_between_units_is_a_quick_question_in_every_language(text: str) -> None:
    assert quick_question(normalize(text)) == "unit conversion"


@pytest.mark.parametrize("text", [
    "how many GB does our index need on 3 nodes?",  # units of data: a question about a system
    "how much memory in mb for 5 m rows?",
    "how many metrics in our grafana dashboards",
    "how many rows in the table",
    "how many times do i stop the pod once a day in cron?",  # stop and once are no units
])
def test_one_unit_or_units_of_data_are_no_conversion(text: str) -> None:
    assert quick_question(normalize(text)) == ""


@pytest.mark.parametrize(("text", "quick"), [
    ("git'te son commit mesajını değiştirmek için hangi flag vardı, --amend miydi?", "hangi flag"),
    ("welches Flag brauche ich bei curl für Redirects?", "welches flag"),
    ("qué opción de docker run limita la memoria?", "qué opción"),
])
def test_which_flag_or_option_of_a_command_is_a_quick_question_in_every_language(text: str, quick: str) -> None:
    assert quick_question(normalize(text)) == quick


def test_adding_an_option_to_one_s_own_script_is_no_quick_question() -> None:
    assert quick_question(normalize("dodaj opcję --dry-run do naszego skryptu")) == ""


def test_a_tool_s_flag_for_a_thing_is_a_quick_question() -> None:
    assert quick_question(normalize("kubectl flag to list pods across all namespaces again?")) == "kubectl flag to"
