"""Retries that multiply are seen: a request that reaches stoic's transport
already retried by the layer above (the OpenAI SDK's own retries, marked
``x-stainless-retry-count``) queues a ``nested_retries`` event, logged as a
warning; the recipe (the SDK's retries off) queues none."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import httpx2
import openai
import pytest

import stoic
import stoic.httpx2

MESSAGES = [{"role": "user", "content": "hi"}]


def ask(root: str, policy: stoic.Policy, max_retries: int) -> None:
    transport = stoic.httpx2.RetryTransport(policy=policy)
    client = openai.OpenAI(
        base_url=root + "/v1",
        api_key="test",
        max_retries=max_retries,
        http_client=httpx2.Client(transport=transport),
    )
    with client, pytest.raises((openai.APIError, stoic.RetryError)):
        client.chat.completions.create(model="gpt-test", messages=MESSAGES)


def storm() -> Any:
    return itertools.repeat((503, {"retry-after-ms": "1"}))


def test_the_sdk_s_own_retries_under_stoic_are_reported(
    server: Any, token: str, clock: stoic.VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    policy = stoic.Policy(breaker=None, max_attempts=2)
    root = server.script(f"{token}-nested", storm())
    with caplog.at_level(logging.WARNING, logger="stoic"):
        ask(root, policy, max_retries=2)
        stoic._records.deliver(policy, None)
    nested = [e for e in policy.events() if e["kind"] == "nested_retries"]
    # The SDK's first attempt is not a retry; its two retries each arrive marked.
    assert [e["retries_above"] for e in nested] == [1, 2]
    assert all("turn that layer's retries off" in e["message"] for e in nested)
    assert len(server.seen[f"{token}-nested"]) == 6  # 3 SDK attempts x 2 of stoic's


def test_the_recipe_reports_nothing(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(breaker=None, max_attempts=2)
    root = server.script(f"{token}-recipe", storm())
    ask(root, policy, max_retries=0)
    assert [e for e in policy.events() if e["kind"] == "nested_retries"] == []
    assert len(server.seen[f"{token}-recipe"]) == 2
