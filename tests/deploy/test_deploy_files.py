"""The deployment files agree with the server: deploy/nginx.conf is sized for 10,000
websockets and outlasts the ping interval; docker-compose.yml runs that very file as the
whole nginx configuration and trusts the balancer's address only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from server.settings import Settings
from tests.support.kills import ROOT

NGINX_CONF = (ROOT / "deploy" / "nginx.conf").read_text()
WEBSOCKETS = 10_000


def directive(name: str) -> str:
    found = re.findall(rf"^\s*{name}\s+([^;]+);", NGINX_CONF, re.MULTILINE)
    assert len(found) == 1, f"{name}: {found}"
    value: str = found[0].strip()
    return value


def seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+)(s|m)?", value)
    assert match is not None, value
    number, unit = match.groups()
    return float(number) * (60 if unit == "m" else 1)


def test_nginx_is_sized_for_ten_thousand_websockets_and_outlasts_the_pings() -> None:
    connections = int(directive("worker_connections"))
    assert connections >= 2 * WEBSOCKETS  # a proxied websocket is two connections
    assert int(directive("worker_rlimit_nofile")) >= 2 * connections
    defaults = Settings()
    assert defaults.ping_interval_seconds is not None and defaults.ping_timeout_seconds is not None
    quiet = defaults.ping_interval_seconds + defaults.ping_timeout_seconds
    assert seconds(directive("proxy_read_timeout")) > quiet
    assert seconds(directive("proxy_send_timeout")) > quiet
    assert "valid=" in directive("resolver")  # names looked up again
    assert directive("proxy_set_header X-Forwarded-For") == "$remote_addr"
    assert "error" in directive("proxy_next_upstream")


def compose_config(*options: str) -> str:
    """``docker-compose config`` of docker-compose.yml with ``options`` (a profile)."""
    compose = shutil.which("docker-compose")
    if compose is None:
        pytest.fail("docker-compose is not installed (Debian package; scripts/test installs it)")
    env = {**os.environ, "SIMON_SECRET": "check"}
    result = subprocess.run(
        [compose, "-f", "docker-compose.yml", *options, "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_docker_compose_runs_the_shipped_nginx_conf_whole() -> None:
    config = compose_config("--profile", "scale")
    mounts = re.findall(r"\S*/deploy/nginx\.conf:(\S+)", config)
    assert mounts == ["/etc/nginx/nginx.conf:ro"], mounts
    assert "conf.d" not in config
    balancer = re.search(r"ipv4_address: (\S+)", config)
    assert balancer is not None
    trusted = set(re.findall(r"SIMON_TRUSTED_PROXIES: (\S+)", config))
    assert trusted == {balancer.group(1)}, trusted
    assert config.count("simon-node") >= 3  # every node answers to the name nginx resolves


@pytest.mark.parametrize("profile", [[], ["--profile", "scale"]], ids=["one-node", "scale"])
def test_only_the_balancer_publishes_a_port(profile: list[str]) -> None:
    config = compose_config(*profile)
    # services are the two-space-indented keys under "services:"; each one's own lines follow
    services = re.split(r"^  (\S+):\n", config.split("\nservices:\n", 1)[1], flags=re.M)
    published = {
        name: re.findall(r"published: (\d+)", body)
        for name, body in zip(services[1::2], services[2::2], strict=True)
        if "published:" in body
    }
    assert published == {"balancer": ["8765"]}, published
    assert "SIMON_METRICS_PORT" in config  # the nodes' figures on a port of their own
