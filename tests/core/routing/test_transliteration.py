"""Loanwords written in Katakana or Hangul, heard as the catalog's English words."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.core.catalog.catalog import load_catalog
from proxy.core.catalog.skill import Skill
from proxy.core.routing.query import query_terms
from proxy.core.routing.router import SkillRouter
from proxy.core.routing.term_index import build_index
from proxy.core.routing.tokens import stem
from proxy.core.routing.transliteration import (
    english_sounds,
    find_loanwords,
    hangul_jamo,
    heard_spellings,
    korean_stem,
    loanword_spellings,
    loanword_table,
    romanize_hangul,
    romanize_katakana,
    sounds_of,
)
from tests.conftest import corpus_roots


def make(name: str, description: str, tags: tuple[str, ...] = ()) -> Skill:
    return Skill(name=name, description=description, folder=Path("/s") / name, root="/s", location=name, tags=tags)


SKILLS = [
    make("k8s-deploy", "Deploy applications to Kubernetes clusters with manifests and rollouts."),
    make("db-migrate", "Plan database schema migrations without downtime."),
    make("slides", "Build presentation decks and slides."),
    make("sheets", "Clean up spreadsheets and CSV exports."),
    make("dashboards", "Design Grafana dashboards for service metrics."),
    make("containers", "Build small container images with multi-stage Dockerfiles."),
    make("microservices", "Split a monolith into microservices; event-driven architecture."),
]
ROUTER = SkillRouter(SKILLS)
TABLE = ROUTER.index.loanwords

# Common native words (and greetings, verbs with endings, names): none is a loanword.
NATIVE_KOREAN = (
    "오늘 회의 부탁 부탁드립니다 안녕하세요 감사합니다 사용자 관리자 보고서 회의록 정리해줘 요약해주세요 작성해줘 "
    "만들어줘 어떻게 그리고 하지만 그래서 일정을 확인해 주세요 문제가 발생했습니다 해결 방법을 알려줘 설정 파일을 "
    "수정하고 싶어요 분석 결과 매출 고객 이탈 원인을 우리 회사 제품 소개서 발표 자료 준비 다음주 월요일까지 "
    "번역해 영어로 한국어로 질문이 있습니다 계약서 검토 논문 초록 실험 통계 유전자 단백질 환자 병원 진료 기록 "
    "학생들 수업 선생님 숙제 도와줘 사진을 편집 음악 추천 여행 계획 날씨 주식 투자 부동산 세금 계산 은행 "
    "비밀번호 변경 화면이 깨져요 반응이 없어요 속도가 느려요 사용량 줄이기 무슨 뜻인지 모르겠어요 함수 이름 "
    "변수 바꾸기 주석 달기 목록 팀원들에게 공유 승인 요청 예산 인건비 채용 공고 면접 신입 사원 교육 환불 정책 "
    "배송 지연 사과문 홍보 문구 광고 제목 경쟁사 시장 조사 설문 우선순위 결정 이번 분기 목표 성과 지표 주간 "
    "월간 연간 살펴봐 천천히 설명해 자세하게 간단하게 예시를 들어서 할머니 할아버지 어머니 아버지 동생 친구들 "
    "사랑해 고마워 미안해 괜찮아요 알겠습니다 그렇군요 정말요 진짜 나중에 대한민국 서울특별시 인공지능 "
    "기계학습 자연어처리 강화학습 미세조정 정확도 재현율 정밀도 손실함수 학습률 전처리 시각화 압축 해제 폴더 "
    "일괄 자동으로 실행되게 매일 아침"
).split()
NATIVE_JAPANESE_KATAKANA = (
    "ドキドキ ワクワク キラキラ ニコニコ ペコペコ イライラ ガンガン ゴロゴロ ピカピカ フワフワ サクサク "
    "タナカ スズキ ヤマダ サトウ トウキョウ オオサカ ニッポン"
).split()


@pytest.mark.parametrize(("katakana", "latin"), [
    ("テスト", "tesuto"), ("データベース", "deetabeesu"), ("ダッシュボード", "dasshuboodo"),
    ("プレゼンテーション", "purezenteeshon"), ("スプレッドシート", "supureddoshiito"), ("コンテナ", "kontena"),
    ("ヴィジュアル", "vijuaru"), ("キャッシュ", "kyasshu"), ("コンピューター", "kompyuutaa"), ("デプロイ", "depuroi"),
    ("フォーマット", "foomatto"), ("ティッカー", "tikkaa"),
])
def test_katakana_is_romanised_hepburn_like(katakana: str, latin: str) -> None:
    assert romanize_katakana(katakana) == latin


@pytest.mark.parametrize(("hangul", "latin", "heard"), [
    ("테스트", "teseuteu", "test"),
    ("쿠버네티스", "kubeonetiseu", "kubanetis"),
    ("데이터베이스", "deiteobeiseu", "deitabeis"),
    ("컨테이너", "keonteineo", "kanteina"),
    ("대시보드", "daesibodeu", "dasibod"),
    ("슬랙", "seullaek", "sllak"),
    ("깃허브", "githeobeu", "githab"),
])
def test_hangul_is_romanised_and_read_as_a_loanword(hangul: str, latin: str, heard: str) -> None:
    assert romanize_hangul(hangul) == latin
    assert romanize_hangul(hangul, loanword=True) == heard


def test_hangul_syllables_decompose_arithmetically() -> None:
    assert hangul_jamo("가") == (0, 0, 0)
    assert hangul_jamo("한") == (18, 0, 4)  # ㅎ ㅏ ㄴ
    assert hangul_jamo("힣") == (18, 20, 27)


def test_japanese_added_vowels_are_heard_both_ways_but_never_a_long_one() -> None:
    assert heard_spellings("テスト") == ("test", "tesuto")
    assert heard_spellings("クーベネティス")[0] == "kubenetis"  # the long ク keeps its u


@pytest.mark.parametrize(("written", "english"), [
    ("쿠버네티스", "kubernetes"), ("クバネティス", "kubernetes"), ("クーベネティス", "kubernetes"),
    ("데이터베이스", "database"), ("データベース", "database"), ("컨테이너", "container"), ("コンテナ", "container"),
    ("대시보드", "dashboard"), ("ダッシュボード", "dashboard"), ("프레젠테이션", "presentation"),
    ("プレゼンテーション", "presentation"), ("스프레드시트", "spreadsheet"), ("スプレッドシート", "spreadsheet"),
    ("테스트", "test"), ("テスト", "test"), ("デプロイ", "deploy"), ("디플로이", "deploy"), ("파이썬", "python"),
    ("パイソン", "python"), ("アーキテクチャ", "architecture"), ("마이그레이션", "migration"),
])
def test_a_loanword_and_its_english_word_share_a_key(written: str, english: str) -> None:
    heard = sounds_of(heard_spellings(written)[0])[0]
    assert heard.key in {sound.key for sound in english_sounds([english])[0]}


def test_korean_particles_and_endings_are_left_off() -> None:
    assert korean_stem("쿠버네티스에서") == "쿠버네티스"
    assert korean_stem("데이터베이스를") == "데이터베이스"
    assert korean_stem("컨테이너들을") == "컨테이너"
    assert korean_stem("액션으로") == "액션"  # the longest ending, though it leaves a stem too short to be heard
    assert loanword_spellings("서버를 액션으로") == []


def test_spellings_are_katakana_runs_and_hangul_words_of_three_letters_or_more() -> None:
    assert loanword_spellings("ダッシュボードを作りたい") == ["ダッシュボード"]
    assert loanword_spellings("スマート・コントラクト") == ["スマート", "コントラクト"]
    assert loanword_spellings("バグ") == []


@pytest.mark.parametrize(("written", "term"), [
    ("쿠버네티스", "kubernetes"), ("クバネティス", "kubernetes"), ("クーベネティス", "kubernetes"),
    ("데이터베이스를", "database"), ("マイグレーション", "migration"), ("프레젠테이션", "presentation"),
    ("스프레드시트", "spreadsheets"), ("대시보드", "dashboards"), ("コンテナ", "container"),
])
def test_a_loanword_is_heard_as_the_catalog_word(written: str, term: str) -> None:
    assert [found for _, found in find_loanwords(written, TABLE)] == [stem(term)]


def test_loanwords_written_together_are_split_only_into_loanwords() -> None:
    found = find_loanwords("マイクロサービスアーキテクチャ", TABLE)
    assert [term for _, term in found] == [stem("microservices"), stem("architecture")]
    assert find_loanwords("マイクロサービスドキドキ", TABLE) == []  # a part left over: no guess


def test_native_words_are_not_heard_as_catalog_words() -> None:
    found = [(w, find_loanwords(w, TABLE)) for w in NATIVE_KOREAN + NATIVE_JAPANESE_KATAKANA]
    assert [hit for hit in found if hit[1]] == []


def test_a_skill_is_found_by_its_loanwords_with_reasons_that_say_so() -> None:
    # spellings the lexicon does not list (it lists 쿠버네티스): the romanisation hears them
    for message in ("쿠버네테스 배포 설정", "クバネティスの設定", "クーベネティスの設定"):
        best = ROUTER.route(message).candidates[0]
        assert best.skill.name == "k8s-deploy"
        assert any("translit:" in reason for reason in best.reasons)


def test_a_lexicon_word_keeps_its_lexicon_reason() -> None:
    terms = {t.term: t.via for t in query_terms("データベースを移行", ROUTER.index)}
    assert terms[stem("database")] == "lexicon:データベース"


def test_loanword_terms_say_which_spelling_they_came_from() -> None:
    terms = {t.term: t for t in query_terms("데이타베이스 마이그레숀", ROUTER.index)}  # spellings no table lists
    assert terms[stem("database")].via == "translit:데이타베이스"
    assert terms[stem("migration")].via == "translit:마이그레숀"


def test_the_table_is_made_only_for_a_message_with_katakana_or_hangul() -> None:
    index = build_index(SKILLS)
    query_terms("数据库迁移 database", index)
    assert "loanwords" not in vars(index) and not index.loanword_cache
    query_terms("데이터베이스", index)
    assert "loanwords" in vars(index) and "데이터베이스" in index.loanword_cache


def test_of_words_spelt_alike_the_first_listed_names_the_term() -> None:
    table = loanword_table({"python": "python", "poisson": "poisson"})
    assert [term for _, term in find_loanwords("パイソン", table)] == ["python"]


@pytest.mark.shared_corpus
def test_native_korean_words_are_rarely_heard_in_a_real_catalog() -> None:
    index = build_index(load_catalog(corpus_roots()).skills)
    heard = [w for w in NATIVE_KOREAN if find_loanwords(w, index.loanwords)]
    assert len(heard) <= 2, heard


def test_warming_a_router_builds_the_loanword_table_before_any_message() -> None:
    from proxy.core.routing.router import SkillRouter

    router = SkillRouter(SKILLS)
    assert "loanwords" not in vars(router.index)
    assert router.warm() is router and "loanwords" in vars(router.index)
