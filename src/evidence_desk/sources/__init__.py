"""Sources beyond the archive: discovery on the web, safe fetching, reading, passage selection.

`netguard.py` decides which URLs and addresses may be fetched at all; `fetch.py` fetches
one through that guard (resolved once, connected to the checked address, redirects
followed by hand); `reading.py` turns the bytes into a `Document` in a separate, limited
process; `passages.py` selects the passages of a read page that go into evidence.
"""
