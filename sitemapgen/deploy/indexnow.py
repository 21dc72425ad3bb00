"""IndexNow: the key file that deploys with the site, and telling the engines what changed.

The protocol (indexnow.org): a key of 8 to 128 letters, digits and dashes,
published as ``KEY.txt`` on the host whose URLs are submitted; a POST of JSON
``{host, key, keyLocation, urlList}`` with at most 10,000 URLs; 200 or 202 is
accepted, 400 a bad request, 403 a key that does not verify, 422 URLs not of
the host or a key that does not match, 429 too many requests. Engines share
submissions, so one endpoint is enough.

Submitting is a separate command, run after the deploy, because the engine
fetches the key file from the live host: before the deploy it is not there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitemapgen.errors import Refusal, SitemapgenError
from sitemapgen.util.fetch import Answer, FetchError, get, post_json, retry_after
from sitemapgen.util.safeio import read_regular, write_beside

#: IndexNow's shared endpoint (it passes submissions on to every participating engine).
ENDPOINT = "https://api.indexnow.org/indexnow"
#: At most this many URLs in one request.
MAX_URLS = 10_000
#: Retries of one request answered 429 or 5xx, and the longest wait between two, in seconds.
RETRIES = 4
MAX_WAIT = 60.0
_REFUSED = {
    400: "bad request (the JSON or a URL is malformed)",
    403: "forbidden: the key is not valid (the key file was not found on the host, or does not hold the key)",
    422: "unprocessable: a URL is not on the host, or the key does not match the key file",
}


class SubmitError(Refusal):
    """The endpoint refused the submission, or the key file is not live (exit 1)."""


def key_file_name(key: str) -> str:
    return f"{key}.txt"


def key_url(base_url: str, key: str) -> str:
    """Where the key file `write_key_file` puts in the docroot is served: the base URL's ``KEY.txt``.
    Under a path (``https://example.com/docs/KEY.txt``), it vouches only for URLs under that path,
    as the protocol says: the site's own pages are."""
    return base_url + key_file_name(key)


def write_key_file(docroot: Path, key: str) -> None:
    """``DOCROOT/KEY.txt`` holding the key, so it deploys with the site.

    Left as it is if it already holds the key; a file (or anything else) of
    that name that holds something else is not ours to replace. Written whole
    under a temporary name and linked into place, so a run that reads the file
    at the same moment never sees it empty, and one that appeared since this
    run looked is read again rather than written over.
    """
    path = docroot / key_file_name(key)
    if _holds_key(path, key):
        return
    try:
        write_beside(path, key.encode("ascii"), over=False)  # never over a file that appeared since: not ours
    except FileExistsError:
        if not _holds_key(path, key):  # another run's key file is as good as ours
            raise


def _holds_key(path: Path, key: str) -> bool:
    """Whether the key file is there and holds the key (False if there is none); an error
    where something else is there."""
    try:
        existing = read_regular(path, limit=1024, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise SitemapgenError(f"{path}: cannot use it as the IndexNow key file: {e.strerror or e}") from None
    if existing.strip() == key.encode("ascii"):
        return True
    raise SitemapgenError(f"{path}: exists and does not hold the IndexNow key; move it away")


@dataclass(frozen=True, slots=True)
class Plan:
    """What `submit` sends: one request body a batch of at most `MAX_URLS` URLs."""

    endpoint: str
    host: str
    key: str
    key_location: str
    urls: tuple[str, ...]

    def bodies(self) -> Iterator[dict[str, object]]:
        for start in range(0, len(self.urls), MAX_URLS):
            yield {
                "host": self.host,
                "key": self.key,
                "keyLocation": self.key_location,
                "urlList": list(self.urls[start : start + MAX_URLS]),
            }


def plan(changes: dict[str, object], *, key: str, endpoint: str, key_location: str | None) -> Plan:
    """The submission for a changes file: its added, changed and removed URLs, on one host."""
    added = changes["added"]
    removed = changes["removed"]
    changed = changes["changed"]
    if not isinstance(added, list) or not isinstance(removed, list) or not isinstance(changed, list):
        raise SitemapgenError("not a changes file (build --changes-file writes one)")
    urls = sorted({*added, *(r["loc"] for r in removed), *(c["loc"] for c in changed)})
    hosts = {urlsplit(url).netloc for url in urls}
    if len(hosts) > 1:
        raise SitemapgenError(f"the changes name {len(hosts)} hosts ({', '.join(sorted(hosts))}); IndexNow takes one")
    base = changes.get("base_url")
    if not hosts:
        host = urlsplit(base).netloc if isinstance(base, str) else ""
    else:
        host = hosts.pop()
    if key_location is None and isinstance(base, str) and urlsplit(base).netloc == host:
        key_location = key_url(base, key)  # where build --indexnow-key put it: DOCROOT is served at the base URL
    elif key_location is None:
        scheme = urlsplit(urls[0] if urls else str(base)).scheme or "https"
        key_location = f"{scheme}://{host}/{key_file_name(key)}"
    if urlsplit(key_location).netloc != host and urls:
        raise SitemapgenError(f"--key-location {key_location} is not on {host}, the host of the URLs")
    return Plan(endpoint, host, key, key_location, tuple(urls))


def check_key_live(submission: Plan) -> None:
    """The key file answers on the live host with the key: else the engine would refuse (403)."""
    try:
        body = get(submission.key_location, limit=1024)
    except FetchError as e:
        raise SubmitError(f"IndexNow key file: {e}") from None
    if body is None:
        raise SubmitError(
            f"{submission.key_location}: not found: deploy the key file (build --indexnow-key) before submitting"
        )
    if body.strip() != submission.key.encode("ascii"):
        raise SubmitError(f"{submission.key_location}: does not hold the key")


def _retry_after(answer: Answer, attempt: int) -> float:
    """Seconds to wait before the next try: Retry-After (seconds or an HTTP date) if given, else backoff."""
    return retry_after(answer.headers, attempt + 1, MAX_WAIT)


def submit(
    submission: Plan,
    *,
    on_status: Callable[[str], object],
    sleep: Callable[[float], None] = time.sleep,
    retries: int = RETRIES,
) -> int:
    """POST every batch; retry 429 and 5xx (honouring Retry-After) up to `retries` times.

    Returns the number of URLs accepted. 400, 403 and 422, or retries run out,
    are a `SubmitError` naming the answer; batches sent before stay sent.
    """
    sent = 0
    for body in submission.bodies():
        urls = body["urlList"]
        assert isinstance(urls, Sequence)
        for attempt in range(retries + 1):
            try:
                answer = post_json(submission.endpoint, body)
            except FetchError as e:
                raise SubmitError(f"IndexNow: {e}") from None
            if answer.status in (200, 202):
                sent += len(urls)
                on_status(f"{submission.endpoint}: {len(urls):,} URLs accepted (HTTP {answer.status})")
                break
            if answer.status in _REFUSED:
                raise SubmitError(f"{submission.endpoint}: HTTP {answer.status}, {_REFUSED[answer.status]}")
            if answer.status != 429 and answer.status < 500:
                raise SubmitError(f"{submission.endpoint}: HTTP {answer.status}")
            if attempt == retries:
                raise SubmitError(
                    f"{submission.endpoint}: HTTP {answer.status} after {retries + 1} tries; {sent:,} URLs were sent"
                )
            wait = _retry_after(answer, attempt)
            on_status(f"{submission.endpoint}: HTTP {answer.status}; trying again in {wait:g} s")
            sleep(wait)
    return sent
