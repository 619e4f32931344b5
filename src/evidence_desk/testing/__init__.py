"""Test doubles shipped with the package: real implementations of what they stand in for.

`fakeproviders.FakeProvider` is a local HTTP server speaking the OpenAI Chat Completions,
OpenAI Responses and Anthropic Messages protocols with scripted replies; the provider tests
and the token-economy benchmark point the official SDKs at it, and an operator can use it to
try a configuration without a key.
"""
