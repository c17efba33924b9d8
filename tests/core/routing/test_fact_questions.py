"""Fact questions ("who invented …?", "what does SEO stand for?") route nothing, in every language."""

from __future__ import annotations

import pytest

from proxy.core.routing.fact_questions import LONGEST_FACT_QUESTION, asks_for_a_fact, only_brevity, without_brevity_tail
from proxy.core.routing.router import MEDIUM, SkillRouter
from proxy.core.routing.tokens import normalize
from tests.core.routing.test_router import make_skill

FACT_QUESTIONS = (
    "who invented the python programming language?",
    "Who came up with the idea of A/B testing?",
    "what does SEO stand for?",
    "What's the history of Kubernetes?",
    "when was docker first released?",
    "which company open sourced kubernetes?",
    "Wer hat Git erfunden?",
    "¿Quién inventó el lenguaje SQL?",
    "Qui a inventé le format PDF ?",
    "Quem criou o Linux?",
    "Chi ha inventato il web?",
    "Кто придумал язык Go?",
    "Kto wynalazł JavaScript?",
    "Linux'u kim geliştirdi?",
    "Siapa yang menciptakan Python?",
    "Ai đã phát minh ra Internet?",
    "Kubernetes 最早是哪家公司开源的？",
    "SQL 是什么的缩写？",
    "Pythonは誰が作ったの？",
    "API は何の略ですか？",
    "리눅스는 누가 만들었어?",
    "what's the difference between RAM and storage?",
    "in javascript whats the difference between == and ===",
    "C'est quoi la différence entre un processus et un thread ?",
    "进程和线程有什么区别？",
    "Como se diz 'boa sorte na apresentação' em inglês?",
    "how do you say 'deadline' in German?",
    "Apa perbedaan antara TCP dan UDP?",
    "a/b test vs multivariate test — what's the difference?",
    "what is a lead magnet in marketing",
    "what even is a pitch deck? is it just a powerpoint about your company",
    "whats idempotent mean in the context of REST apis",
    "why is kubernetes abbreviated k8s",
    "¿Qué es un webhook?",
    "什么是递归？",
    "RAGとは何ですか？",
    "what's RAG in AI? one paragraph is fine",
    "что такое race condition в двух словах?",
    "o que é um webhook?",
    "cos'è un container?",
    "co to jest kubernetes?",
    "docker nedir?",
    "apa itu CI/CD?",
    "microservice là gì",
    "how many employees does Stripe have these days, roughly",
    "did Airbnb really create Airflow? I always thought it was just an apache thing",
    "сколько лет уже существует Linear?",
    "Godotってどこの国で生まれたエンジンなんですか？",
    "where was Python invented?",
    # what a term means, in the word order of each language
    "what is the meaning of 'idempotent'?",
    "o que quer dizer SLA?",
    "churn significa o quê?",
    "¿Qué significa ARPU?",
    "que veut dire MRR ?",
    "Was bedeutet DSGVO?",
    "cosa vuol dire deploy?",
    "что значит MVP?",
    "co oznacza skrót ROI?",
    "backlog ne anlama gelir?",
    "apa arti dari retention?",
    "cohort nghĩa là gì",
    "SaaS是什么意思？",
    "スクラムって何？",
    "MAU가 무슨 뜻이야?",
    "sao Kubernetes lại viết tắt là k8s?",
    # whether two names are one thing
    "is SSO the same as SAML?",
    "le RGPD c'est la même chose que le GDPR ?",
    "¿la IA generativa es lo mismo que un LLM?",
    "ist DevOps das gleiche wie SRE?",
    "CI và CD giống nhau không?",
)
TASKS = (
    "what does this error mean: KeyError 'user_id' in views.py line 40",
    "who wrote this function? show me the git blame for utils.py",
    "find the origin of this memory leak in our worker",
    "show me the git history of this file",
    "make an A/B test plan for our pricing page headline",
    "这个报错是什么意思？TypeError: undefined is not a function",
    "帮我设计一张海报",
    "difference between DPO and PPO, which should we use for our chat model?",  # a choice about their work
    "translate our whole README into Japanese and keep the code blocks",
    # whether a difference is significant is a statistical test on the user's data
    "is the difference between the two groups significant?",
    "Hasil survei mau saya analisis, apakah ada perbedaan signifikan antar kelompok umur",
    "what is the best way to structure a fastapi project?",
    "what is a good way to load test our payment webhook?",  # a way to do their work
    "what is a good ci tool for a python monorepo?",  # a recommendation for their work
    "what is wrong with my query",
    "what does this error mean?",
    "what is latency in our app? p99 doubled since monday",
    "что такое не так с нашим API, почему он падает?",
    "o que é melhor para o nosso time, Jira ou Linear?",
    "how many users does our app have per day? pull it from the events table",
    "did you create the migration for the orders table?",
    "how old is this cache entry allowed to get before we refresh it?",
    "¿qué significa este error en mi consola?",
    "что значит эта ошибка в логах?",
    "这个报错是什么意思？",
    "bedanya staging sama prod kita apa? migrasinya cuma jalan di satu",
    "is the staging database the same as prod? our migration only ran on one",
)


@pytest.mark.parametrize("text", FACT_QUESTIONS)
def test_fact_questions_in_every_language_are_recognised(text: str) -> None:
    assert asks_for_a_fact(normalize(text))


@pytest.mark.parametrize("text", TASKS)
def test_tasks_that_share_words_with_fact_questions_are_not(text: str) -> None:
    assert not asks_for_a_fact(normalize(text))


# How short the answer should be, said after the question, in the languages the router reads.
BREVITY_TAILS = (
    "what does SLA mean, in one sentence?",
    "what's a webhook? explain briefly",
    "¿qué es un webhook? en pocas palabras",
    "o que significa churn? resumidamente",
    "was bedeutet SLA? kurz bitte",
    "cos'è un webhook, in poche parole",
    "что значит CI/CD, коротко объясни",
    "co to jest webhook? w skrócie",
    "SLA nedir, kısaca açıkla",
    "apa itu webhook? jelaskan singkat",
    "SQL里的JOIN是什么意思，一句话说明",
    "bedanya RAM sama storage apa sih? singkat aja",
    "che differenza c'è tra SQL e NoSQL, in una riga",
)


@pytest.mark.parametrize("text", BREVITY_TAILS)
def test_a_fact_question_keeps_its_shape_when_a_short_answer_is_asked_for(text: str) -> None:
    assert asks_for_a_fact(normalize(text))
    assert without_brevity_tail(normalize(text)) != normalize(text)


def test_a_brevity_word_inside_a_task_is_no_tail() -> None:
    text = normalize("what does SLA mean for our contract? we need to fix the uptime clause quickly")
    assert without_brevity_tail(text) == text
    assert not asks_for_a_fact(text)


def test_an_ask_of_only_brevity_sends_the_router_to_the_question_before_it() -> None:
    assert only_brevity("en deux mots ?") and only_brevity("коротко") and not only_brevity("write it briefly")
    router = SkillRouter((make_skill("webhooks", "Design and secure webhooks: signatures, retries, delivery."),))
    decision = router.route("Qu'est-ce qu'un webhook, en deux mots ?")
    assert decision.selected == ()
    assert "penalty:asks_for_a_fact" in decision.candidates[0].reasons


def test_a_long_message_carries_a_task_of_its_own() -> None:
    text = "who invented this approach? " + "we need to port our billing service and plan the migration " * 3
    assert len(text) > LONGEST_FACT_QUESTION
    assert not asks_for_a_fact(normalize(text))


def test_the_router_ranks_the_subject_of_a_fact_question_but_routes_nothing() -> None:
    router = SkillRouter((
        make_skill("python-packaging", "Package Python projects: pyproject, wheels, publishing to PyPI."),
        make_skill("ab-testing", "Plan and analyse A/B tests: hypotheses, sample size, significance."),
    ))
    asked = router.route("plan an A/B test for our pricing page: sample size and significance")
    assert [c.skill.name for c in asked.selected] == ["ab-testing"]
    fact = router.route("who came up with A/B testing and significance tests?")
    assert fact.selected == ()
    assert fact.candidates[0].skill.name == "ab-testing"
    assert fact.candidates[0].score < MEDIUM <= asked.selected[0].score
    assert "penalty:asks_for_a_fact" in fact.candidates[0].reasons


@pytest.mark.parametrize(("text", "fact"), [
    ("how does a compiler turn code into something the cpu can run, high level", True),
    ("why is python slow compared to c? is it the GIL or something else entirely", True),
    ("how does an index actually work?", True),
    ("why is our python service slow since tuesday?", False),  # the user's own system: help, not a fact
    ("how does a saga work in our order flow?", False),
    ("why is this query slow?", False),
])
def test_how_a_kind_of_thing_works_asked_in_general_is_a_fact_question(text: str, fact: bool) -> None:
    assert asks_for_a_fact(normalize(text)) is fact
