"""Test doubles shipped with the package: real implementations of what they stand in for.

`fakeproviders.FakeProvider` is a local HTTP server speaking the OpenAI Chat Completions,
OpenAI Responses and Anthropic Messages protocols with scripted replies; the provider tests
and the token-economy benchmark point the official SDKs at it, and an operator can use it to
try a configuration without a key. Each protocol's wire is a module of its own
(`fakechat.py`, `fakeresponses.py`, `fakeanthropic.py`: bodies, errors, the model list,
rate-limit headers), the shapes they share are in `fakebodies.py`, and the rules the real
APIs enforce in `fakerules.py`; the OpenAI servers also serve the Images API
(`fakeimages.py`).

`fixtureweb.FixtureWeb` is a small web on 127.0.0.1 (pages, redirects, hostile answers,
TLS with a throwaway certificate authority) that counts every connection it accepts, and
`PublicNetwork` makes it look like public hosts to the fetch guard; `fixturesearch` answers
web searches in SearXNG's JSON and in OpenAI's Responses API with the web search tool.
"""
