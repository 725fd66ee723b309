"""Human-only asks made in a sentence's second clause, and approvals of changes."""

from __future__ import annotations

import pytest

from reflection_core import config
from reflection_core.session.decide import Decision, DecisionContext, decide
from reflection_core.session.human_action import assess_requests
from tests.unit.sessionbuild import SessionBuilder

WIRED = (
    SessionBuilder("Hook the mailer up to SendGrid")
    .edit("src/mailer.py")
    .bash("python -m pytest -q", output="31 passed")
)
NOTHING_RAN = SessionBuilder("Rotate the signing key for the staging API").bash(
    "vault write transit/keys/api/rotate", exit=2, output="Code: 403. permission denied"
)


def run(final: str, builder: SessionBuilder = WIRED) -> Decision:
    return decide(builder.build(final), DecisionContext(config=config.defaults()))


@pytest.mark.parametrize(
    ("final", "kind"),
    [
        (
            "The mailer is wired and tested (31 passed). Sending for real needs a SendGrid API "
            "key: generate one in the SendGrid dashboard under Settings and put it in .env as "
            "SENDGRID_API_KEY.",
            "credentials",
        ),
        (
            "Done with the code; the last step is yours \u2014 copy the webhook secret from the "
            "provider's console into the CI variables.",
            "credentials",
        ),
    ],
)
def test_an_imperative_after_a_colon_or_dash_is_a_request(final: str, kind: str) -> None:
    assert [k for k, _ in assess_requests(final).human_only] == [kind]
    d = run(final)
    assert not d.complete and d.requires_human_action and d.status == "waiting_for_user"
    assert not d.should_block


def test_a_change_that_needs_an_approved_ticket_waits_for_the_user() -> None:
    final = (
        "I can't rotate the key: production secrets need an approved change ticket and my "
        "token lacks the policy. Please open the ticket (or get it approved) and rerun the "
        "command with an authorized token."
    )
    d = run(final, NOTHING_RAN)
    assert [k for k, _ in assess_requests(final).human_only] == ["approval"]
    assert not d.complete and d.requires_human_action and d.status == "waiting_for_user"


@pytest.mark.parametrize(
    "final",
    [
        "Wired up SendGrid (31 passed). Note: the API key is read from SENDGRID_API_KEY, which "
        "is already set in .env.",
        "Done: the client takes its API key from the dashboard-managed secret store; nothing "
        "else to configure.",
        "Summary: replaced the SMTP client; the sandbox key you configured earlier is used.",
    ],
)
def test_mentioning_a_key_that_is_already_configured_stays_complete(final: str) -> None:
    assert assess_requests(final).human_only == []
    d = run(final)
    assert d.complete and not d.requires_human_action


def test_a_device_code_sign_in_waits_for_the_user() -> None:
    final = (
        "The cloud CLI needs an interactive sign-in: open the device login page and enter the "
        "code it shows. Tell me when you're done and I'll list the resource groups."
    )
    assert [k for k, _ in assess_requests(final).human_only][:1] == ["login"]
    d = run(final, SessionBuilder("List our cloud resource groups").bash("az login", exit=1))
    assert d.requires_human_action and d.status == "waiting_for_user"


def test_a_step_that_waits_on_the_users_login_is_held_without_a_remaining_work_note() -> None:
    final = (
        "The config change is in place and `terraform validate` passes, but the plan needs "
        "your cloud session renewed.\n\n**Next step:**\n```\ncloud-cli login\n"
        "terraform plan\n```\nPing me once you're logged in and I'll run the plan."
    )
    assert [k for k, _ in assess_requests(final).human_only] == ["login"]
    d = run(final)
    assert not d.should_block and d.stop_category == "waiting_for_user"
    assert "reading:remaining_work" not in d.open_patterns
