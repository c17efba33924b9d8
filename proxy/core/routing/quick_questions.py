"""Quick questions: one short sentence asking how to do one small thing, or what something is.

"how do I add ~/bin to my $PATH on zsh?", "how do I rename a column in a pandas dataframe",
"command to extract a .tar.gz into a specific folder", "what's the keyboard shortcut to split the
terminal in vscode?" ask for a line a model knows by heart. A skill's workflow (a checklist, scripts,
references) does not help, and routing one adds its instructions to a one-line answer. Such a
question routes a skill only on a `high` match (the router scales a weaker one below `medium` and
says `penalty:quick_question=how do i`); "how do I fine-tune Llama 3 with GRPO on my math dataset?"
meets a skill strongly enough to keep it.

A quick question is a single sentence of at most QUICK_MAX_WORDS words that opens with "how do I",
"how to", "what's the", "which", "is there a way to", or asks for a "command", "one-liner",
"regex", "syntax" or "shortcut", perhaps after where it is asked ("in vim how do I …", "git: how
do I …"); or a textbook exercise, a small piece of code about nobody's own system ("write a python
function that reverses a linked list", not "write a function that parses our invoices"). A message
of two sentences sets a scene or reports a problem, and a request for work on the user's own system
("can you fix …", "write our …") is no quick question. English only, for now. Pure and
deterministic, on the normalised (case-folded) message.
"""

from __future__ import annotations

import re

from proxy.core.routing.triggered_patterns import first_match, triggered

QUICK_MAX_WORDS = 16
QUICK_MAX_CHARS = 200

_OPENER = re.compile(
    # where it is asked: "in vim how do I …", "in javascript, what's the …", "git: how do I …", "quick one: …"
    r"(?:(?:in [\w.+#-]+(?: [\w.+#-]+)?,? |[\w.+#-]+(?: [\w.+#-]+)?: )(?=how|what|which|where|is there))?"
    r"(?:how (?:do|can|would|should) (?:i|you|we)|how to|what(?:'s|’s| is|s) the|which|"
    r"where (?:do|is|are|can) (?:i|the)|"
    r"is there (?:a|an) (?:way|command|shortcut|setting|flag|option)|(?:bash |shell |git |sql |python |a )?"
    r"(?:command|one-liner|one liner|oneliner|regex|syntax|shortcut|keyboard shortcut|sql|snippet) (?:to|for)|"
    r"[\w.+#-]+: )\b"
)
# A textbook exercise: "write a python function that reverses a linked list", "write a SQL query that returns
# the top 5 customers by order value": a small piece of code that stands alone, about nobody's system.
_EXERCISE = re.compile(
    r"(?:can you |could you |please |pls )?(?:write|give me|make|implement|code) (?:me )?(?:a|an) (?:[\w+#-]+ ){0,2}"
    r"(?:function|script|snippet|regex|query|one-liner|one liner|program|method|class)\b"
)
# In the other languages the router reads: an ask for the command or shortcut that does a thing
# ("lệnh git để xoá branch local là gì", "gitで直前のコミットメッセージを直すコマンドは？"). Their how-to
# openers are left alone: a lexicon match rarely reaches `high`, so they would lose too many requests.
_FOREIGN_COMMAND = triggered((
    (("comando", "lệnh", "lenh", "komenda", "komendy", "polecenie", "komut", "komutu", "perintah", "команда", "команду",
      "befehl", "commande", "atajo", "atalho", "raccourci", "scorciatoia", "skrót", "skrot", "kısayol", "kısayolu",
      "kisayol", "kisayolu", "tastenkombination", "tastenkürzel", "phím", "хоткей", "сочетание", "горячие",
      "shortcut", "shortcutnya"),
     r"\b(?:comando|lệnh|lenh|komenda|komendy|polecenie|komut|komutu|perintah|команда|команду|befehl|commande|"
     r"atajo|atalho|raccourci|scorciatoia|skrót|skrot|kısayol\w*|kisayol\w*|tastenkombination|tastenkürzel|"
     r"phím tắt|хоткей|сочетание клавиш|горячие клавиши|shortcut(?:nya)? (?:buat|untuk|apa))\b"),
    (("コマンド", "ショートカット", "명령어", "단축키", "命令是", "快捷键", "快捷鍵"),
     r"コマンド|ショートカット|명령어|단축키|命令是|快捷键|快捷鍵"),
))
_ABOUT_THEIR_OWN = re.compile(r"\b(?:my|our|this|these|your|we|i)\b|\bi'")
_INNER_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)(?=.)|\n")
_WORD = re.compile(r"[^\W_]+")


def quick_question(text: str) -> str:
    """The opener of a (normalised) quick question ("how do i"), or ""."""
    text = text.strip()
    if len(text) > QUICK_MAX_CHARS:  # longer than any question of QUICK_MAX_WORDS words: most messages stop here
        return ""
    match = _OPENER.match(text) or first_match(_FOREIGN_COMMAND, text)
    if match is None:
        match = _EXERCISE.match(text)
        if match is None or _ABOUT_THEIR_OWN.search(text):
            return ""
    if len(_WORD.findall(text)) > QUICK_MAX_WORDS:
        return ""
    if _INNER_SENTENCE_END.search(text.rstrip("?!. ")):
        return ""
    return match.group().strip()
