"""The one GitHub REST call the CI branch check needs: which pull requests hold a commit.

`GET {GITHUB_API_URL}/repos/{owner/repo}/commits/{sha}/pulls` with GITHUB_TOKEN.
Any failure (no token, offline, 4xx/5xx, bad JSON) returns None so the caller
falls back to merge-commit heuristics; it never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_API_URL = "https://api.github.com"
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class PullRequest:
    number: int
    base_ref: str
    merged: bool


def pulls_for_commit(
    env: Mapping[str, str], repository: str, sha: str
) -> tuple[list[PullRequest] | None, str]:
    """The pull requests associated with `sha`, or None and why the API could not say."""
    token = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN")
    if not token:
        return None, "no GITHUB_TOKEN"
    if not repository:
        return None, "no GITHUB_REPOSITORY"
    import requests

    base = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    url = f"{base}/repos/{repository}/commits/{sha}/pulls"
    headers = {
        "Accept": "application/vnd.github+json",
        "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    try:
        response = requests.get(url, headers=headers, timeout=TIMEOUT_S)
    except requests.RequestException as exc:
        return None, f"GitHub API unreachable ({type(exc).__name__})"
    if response.status_code != 200:
        return None, f"GitHub API answered HTTP {response.status_code}"
    try:
        data: Any = response.json()
    except ValueError:
        return None, "GitHub API answered with invalid JSON"
    if not isinstance(data, list):
        return None, "GitHub API answered with an unexpected shape"
    pulls = []
    for item in data:
        if not isinstance(item, dict):
            continue
        base_info = item.get("base")
        if not isinstance(base_info, dict):
            base_info = {}
        pulls.append(
            PullRequest(
                number=int(item.get("number") or 0),
                base_ref=str(base_info.get("ref") or ""),
                merged=bool(item.get("merged_at")),
            )
        )
    return pulls, "GitHub API"
