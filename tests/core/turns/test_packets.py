import re
from pathlib import Path

from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import RouteCandidate
from proxy.core.turns.activation import Activation, ActivationRequest
from proxy.core.turns.packets import Expansion, explicit_text, invocation_packet, reminder, routed_injection

PDF = Skill(name="pdf", description="Read <PDF> files & more", folder=Path("/s/pdf"), root="/s",
            location="/s/pdf/SKILL.md", has_supporting_files=True)


def test_invocation_packet_shape_and_attributes():
    request = ActivationRequest((Activation("$pdf", "pdf", PDF), Activation("$pfd", "pfd", None, ("pdf",))), "merge")
    packet = invocation_packet(request, {"pdf": Expansion(text="# PDF body")}, "server")
    assert packet.startswith('<skill_invocation_packet priority="highest" source="skillproxy" expanded="true" '
                             'expanded_count="1" unresolved_count="1" failed_expansion_count="0">')
    for tag in ("activation_status", "model_contract", "next_action", "activated_skill", "token", "n", "description",
                "location", "has_supporting_files", "supporting_files_hint", "unresolved_skill_activations"):
        assert f"<{tag}>" in packet or f"<{tag} " in packet, tag
    assert "<activation_status>expanded_success</activation_status>" in packet
    assert ('<expanded_skill_instructions source="/s/pdf/SKILL.md">\n# PDF body\n</expanded_skill_instructions>'
            in packet)
    assert "<description>Read &lt;PDF&gt; files &amp; more</description>" in packet
    assert '<skill_token closest="pdf">$pfd</skill_token>' in packet
    assert packet.endswith("</skill_invocation_packet>")
    for tool in ("list_skill_files", "read_skill_file", "list_skills"):
        assert tool in packet


def test_failed_expansion_is_reported():
    request = ActivationRequest((Activation("$pdf", "pdf", PDF),), "x")
    packet = invocation_packet(request, {"pdf": Expansion(error="gone")}, "server")
    assert 'expanded="false"' in packet and 'failed_expansion_count="1"' in packet
    assert "<expanded_skill_instructions_error>gone</expanded_skill_instructions_error>" in packet
    assert "<activation_status>no_skill_expanded</activation_status>" in packet


def test_explicit_text_wraps_payload():
    assert explicit_text("P", "do it", ["pdf"]).endswith(
        '<task_payload for_expanded_skills="pdf">\ndo it\n</task_payload>')
    assert 'for_expanded_skills="unresolved"' in explicit_text("P", "x", [])


def test_routed_block_shape():
    text = routed_injection([RouteCandidate(PDF, 82, "high", ("exact:name=pdf", "tag:pdf"))], "server")
    assert text.startswith("<skills_runtime_context>\n") and "</skills_runtime_context>\n\n<routed_skills>\n" in text
    assert re.search(r'<skill rank="1" confidence="high" score="82">\n<n>pdf</n>\n<description>.*</description>\n'
                     r'<why>exact:name=pdf; tag:pdf</why>\n<location>/s/pdf/SKILL.md</location>\n</skill>', text)
    assert "<routing_decision>" in text and text.endswith("</routed_skills>")
    inline = routed_injection([RouteCandidate(PDF, 82, "high", ())], "inline", {"pdf": "BODY"})
    assert "<expanded_skill_instructions" in inline and "BODY" in inline
    assert "read_skill_file" not in routed_injection([RouteCandidate(PDF, 82, "high", ())], "client")


def test_reminders_carry_their_reason():
    for reason in ("no confident skill route", "route unchanged", "scan timeout or routing error"):
        text = reminder(reason)
        assert text.startswith(f'<skills_runtime_reminder reason="{reason}">')
        assert text.endswith("</skills_runtime_reminder>")
