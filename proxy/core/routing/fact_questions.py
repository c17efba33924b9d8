"""Questions that ask for a fact: who made a thing, when it came out, what an acronym stands for,
how two things differ, how to say a phrase in another language.

"Who invented the Python programming language?", "what does SEO stand for?", "Kubernetes
最早是哪家公司开源的？", "what's the difference between RAM and storage?" name a skill's subject,
but a chat model answers them from what it knows: no skill's instructions help, and routing one
only costs the model context. A short ask in this shape is a fact question, in any of the
fourteen languages the router reads; the router routes nothing for it (it still ranks the
skills, for `list_skills`).

Deliberately narrow: only the shapes that ask about a thing's origin, maker, date,
abbreviation, how two things differ, or a phrase's translation. "What does this error mean?"
asks for help with the user's own problem and is not one; neither is a long message, which
carries a task of its own, nor a comparison that asks which to use ("… which should I pick for
our pipeline?").

Pure and deterministic; the patterns are matched on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import CJK_RUN

LONGEST_FACT_QUESTION = 160  # characters of the ask; longer ones carry a task of their own
_MADE = (
    r"(?:invent(?:ed|s)?|creat(?:ed|es)|made|found(?:ed|s)|came up with|come up with|coined|designed|"
    r"discovered|developed)"
)
# Each is searched in the ask; Latin ones as whole words.
_LATIN = (
    # en
    rf"\bwho (?:first |originally |actually |really )?{_MADE}\b(?! (?:this|that|these|those|it|our|my|your)\b)",
    r"\bwho is (?:the )?(?:inventor|creator|founder|author|father|mother) of\b",
    r"\bwhat (?:does|do|did) (?:the )?(?:acronym |abbreviation |letters? )?[\w./+-]+(?: [\w./+-]+)? stand for\b",
    r"\bwhat(?: is|'s|s)? (?:the )?(?:acronym|abbreviation) \b",
    r"\b(?:when|what year) (?:was|were|did|is|came) [\w ./+-]{1,40}?(?:invented|created|released|founded|"
    r"introduced|launched|made|born|come out|came out|first)\b",
    r"\bwhich (?:company|person|country|university|team|year) (?:first )?(?:invented|created|made|developed|"
    r"released|owns|built|founded|open[- ]?sourced|came up with)\b",
    r"\b(?:what(?: is|'s|s)|tell me about|explain) the (?:history|origin|etymology) of\b",
    # de
    r"\bwer hat [\w ./+-]{1,40}?(?:erfunden|entwickelt|gegründet|geschrieben|erschaffen|erstellt)\b",
    r"\bwofür steht\b|\bwofuer steht\b|\bwann wurde [\w ./+-]{1,40}?(?:erfunden|gegründet|veröffentlicht)\b",
    # es
    r"\bqui[ée]n (?:invent[óo]|cre[óo]|fund[óo]|desarroll[óo]|escribi[óo]|dise[ñn][óo])\b",
    r"\bqu[ée] significan? las siglas\b|\bde qu[ée] son las siglas\b",
    r"\bcu[áa]ndo (?:se )?(?:invent[óo]|cre[óo]|fund[óo]|lanz[óo]|sali[óo])\b",
    # fr
    r"\bqui a (?:invent[ée]|cr[ée]{2}|fond[ée]|d[ée]velopp[ée]|[ée]crit|con[çc]u)\b",
    r"\bque (?:veut dire|signifie) (?:le |l'|les )?(?:sigle|acronyme)\b",
    r"\bquand (?:a [ée]t[ée]|est sorti|a [ée]t[ée] cr[ée]{2})\b",
    # pt
    r"\bquem (?:inventou|criou|fundou|desenvolveu|escreveu)\b|\bo que significa a sigla\b",
    r"\bquando (?:foi )?(?:inventad[oa]|criad[oa]|fundad[oa]|lançad[oa]|lancad[oa])\b",
    # it
    r"\bchi ha (?:inventato|creato|fondato|sviluppato|scritto)\b|\bcosa significa la sigla\b",
    r"\bquando (?:è|e) stato (?:inventato|creato|fondato)\b",
    # ru
    r"\bкто (?:изобр[её]л|создал|придумал|основал|разработал|написал)\b",
    r"\bкак расшифровывается\b|\bчто означает (?:аббревиатура|сокращение)\b",
    r"\bкогда (?:был[аои]? )?(?:изобретен|изобретён|создан|основан|появил)",
    # pl
    r"\bkto (?:wynalaz[łl]|stworzy[łl]|wymy[śs]li[łl]|za[łl]o[żz]y[łl]|napisa[łl])\b",
    r"\bco oznacza skr[óo]t\b|\bjak rozwija si[ęe] skr[óo]t\b|\bkiedy powsta[łl]",
    # tr
    r"\b(?:kim|kimler) (?:icat etti|buldu|kurdu|geliştirdi|gelistirdi|yarattı|yazdı)\b",
    r"\bkısaltması ne\b|\bneyin kısaltması\b|\bne zaman (?:icat edildi|kuruldu|çıktı|cikti)\b",
    # id
    r"\bsiapa (?:yang )?(?:menemukan|menciptakan|membuat|mendirikan|mengembangkan|penemu|pencipta|pendiri)\b",
    r"\bkepanjangan (?:dari )?\b|\bsingkatan dari apa\b",
    r"\bkapan [\w ]{1,30}?(?:ditemukan|diciptakan|dirilis|didirikan)\b",
    # vi
    r"\bai (?:đã )?(?:phát minh|sáng lập|tạo ra|sáng tạo|viết)\b",
    r"\bviết tắt (?:của )?(?:gì|cái gì|từ gì)\b|\bra đời (?:khi nào|năm nào)\b",
)
_CJK = (
    # zh
    r"谁(?:发明|創造|创造|创建|創建|写的|寫的|开发|開發|设计|設計|提出)|是谁(?:发明|开发|開發|创造|提出)",
    r"哪家公司|哪個公司|哪个公司|哪一年|什么的缩写|什麼的縮寫|是什么缩写|缩写是什么|縮寫是什麼|最早是谁|最早由",
    # ja
    r"誰が(?:作った|開発した|発明した|考えた|作りました|開発しました)|どこの会社|何の略",
    r"いつ(?:作られた|できた|登場した|リリースされた)",
    # ko
    r"누가 ?(?:만들었|발명했|개발했|처음)|무엇의 약자|뭐의 약자|약자(?:인가요|야|예요|가 뭐)|어느 회사",
    r"언제 (?:나왔|만들어졌|출시)",
)
# How two things differ, and how a phrase is said in another language.
_DIFFERENCE = (
    r"\b(?:the )?differences? between\b|\bhow (?:is|are|does|do) [\w ./+#-]{1,40}? differ from\b",
    r"\bunterschied zwischen\b|\bdiferencias? entre\b|\bdiff[ée]rences? entre\b|\bdiferen[çc]as? entre\b",
    r"\bdifferenz[ae] (?:tra|fra)\b|\bразница между\b|\bчем отлича\w*|\bróżnic[ae] (?:między|miedzy)\b",
    r"\barasındaki farklar?\b|\bperbedaan (?:antara )?\b|\bkhác nhau\b|\bkhác gì\b",
    r"有什么区别|有什麼區別|区别是什么|區別是什麼|有何不同|の違い|違いは|차이(?:가|는|점)",
    r"\bhow do (?:you|i|we) say\b|\bhow to say\b|\bwie sagt man\b|\bc[óo]mo se dice\b|\bcomment (?:dit-on|on dit)\b",
    r"\bcomo (?:se )?(?:diz|falo|digo)\b|\bcome si dice\b|\bкак (?:сказать|будет) по-\w+",
    r"\bjak (?:powiedzieć|jest) po\b",
    r"\bnasıl denir\b|\bbahasa inggris(?:nya)? apa\b|\bnói (?:thế nào|sao) (?:trong|bằng) tiếng\b",
    r"翻译成(?:英文|中文|日文|英语)|翻譯成(?:英文|中文|日文)|用英[文语]怎么说|英語で何と|영어로 (?:뭐|어떻게)",
)
# A comparison that asks which to use is a decision about the user's own work, not a fact.
_CHOICE = re.compile(r"\b(?:which|should|recommend|for (?:my|our))\b|哪个|該用|应该|どっち|어느 것")
_FACT = re.compile("|".join((*_LATIN, *_CJK)))
_DIFFERENCE_OR_PHRASE = re.compile("|".join(_DIFFERENCE))


def asks_for_a_fact(ask: str) -> bool:
    """`ask` (normalised) is a short question about a thing's origin, maker, date or abbreviation."""
    limit = LONGEST_FACT_QUESTION // 2 if CJK_RUN.search(ask) else LONGEST_FACT_QUESTION
    if len(ask) > limit:
        return False
    if _FACT.search(ask) is not None:
        return True
    return _DIFFERENCE_OR_PHRASE.search(ask) is not None and _CHOICE.search(ask) is None
