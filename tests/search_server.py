"""A local server replying like Elasticsearch/OpenSearch ``_search`` and Solr ``select``, for
tests of retriever connections.

``SearchServer(docs)`` listens on 127.0.0.1 (a free port) in a thread; ``docs`` maps a document
id to its text. ``es_url`` is ``.../demo/_search`` (POST, a ``match`` query body) and
``solr_url`` is ``.../solr/demo/select`` (GET, ``q`` and ``rows``). The ranking: the number of
distinct query words in the document, ties by id; documents without a query word are left out.

The replies have the documented shapes: a ``hits.hits[]`` list of ``_id``/``_score``/``_source``
(Elasticsearch), a ``response.docs[]`` list of the ``fl`` fields (Solr), and their error bodies
(``error.root_cause``/``error.reason``/``status``; Solr ``error.msg``/``error.code``).

``script`` maps a query text to the modes its next requests take, in order (``good`` when none
is left): ``good``; ``400`` (a parsing error); ``429`` (``Retry-After: retry_after``); ``503``
(all shards failed); ``slow`` (no answer until the server closes). ``asked`` counts the
requests per query text; ``headers`` keeps each request's headers.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORD = re.compile(r"[a-z0-9]+")


def es_error(status: int, kind: str, reason: str) -> dict:
    return {"error": {"root_cause": [{"type": kind, "reason": reason}], "type": kind,
                      "reason": reason}, "status": status}


def solr_error(status: int, message: str) -> dict:
    return {"responseHeader": {"status": status, "QTime": 0},
            "error": {"metadata": ["error-class", "org.apache.solr.common.SolrException"],
                      "msg": message, "code": status}}


class SearchServer:
    def __init__(self, docs: dict[str, str], retry_after: str = "1") -> None:
        self.docs = docs
        self.retry_after = retry_after
        self.script: dict[str, list[str]] = {}
        self.asked: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.es_url, self.solr_url = f"{origin}/demo/_search", f"{origin}/solr/demo/select"

    def ranking(self, query: str, size: int) -> list[tuple[str, float]]:
        words = set(WORD.findall(query.lower()))
        scored = [(doc, float(len(words & set(WORD.findall(text.lower())))))
                  for doc, text in self.docs.items()]
        scored = sorted((s for s in scored if s[1] > 0), key=lambda s: (-s[1], s[0]))
        return scored[:size]

    def next_mode(self, query: str) -> str:
        with self.lock:
            self.asked[query] += 1
            modes = self.script.get(query) or []
            return modes.pop(0) if modes else "good"

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def reply(self, status: int, payload: dict, headers: dict | None = None) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                server.headers.append(dict(self.headers))
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                query = next(iter(request["query"]["match"].values()))
                if self.misbehaved(server.next_mode(query), es=True):
                    return
                hits = [{"_index": "demo", "_id": doc, "_score": score,
                         "_source": {"chunk_id": doc, "text": server.docs[doc]}}
                        for doc, score in server.ranking(query, int(request["size"]))]
                self.reply(200, {"took": 1, "timed_out": False,
                                 "_shards": {"total": 1, "successful": 1, "skipped": 0,
                                             "failed": 0},
                                 "hits": {"total": {"value": len(hits), "relation": "eq"},
                                          "max_score": hits[0]["_score"] if hits else None,
                                          "hits": hits}})

            def do_GET(self) -> None:
                server.headers.append(dict(self.headers))
                params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                if self.misbehaved(server.next_mode(params["q"]), es=False):
                    return
                fields = params.get("fl", "id,score").split(",")
                docs = [{f: v for f, v in (("id", doc), ("score", score)) if f in fields}
                        for doc, score in server.ranking(params["q"], int(params["rows"]))]
                self.reply(200, {"responseHeader": {"status": 0, "QTime": 1, "params": params},
                                 "response": {"numFound": len(docs), "start": 0,
                                              "maxScore": docs[0]["score"] if docs else 0.0,
                                              "numFoundExact": True, "docs": docs}})

            def misbehaved(self, mode: str, *, es: bool) -> bool:
                if mode == "400":
                    self.reply(400, es_error(400, "parsing_exception", "[match] malformed query")
                               if es else solr_error(400, "undefined field nosuchfield"))
                elif mode == "429":
                    self.reply(429, es_error(429, "es_rejected_execution_exception",
                                             "rejected execution of search") if es
                               else solr_error(429, "Too many requests"),
                               {"Retry-After": server.retry_after})
                elif mode == "503":
                    self.reply(503, es_error(503, "search_phase_execution_exception",
                                             "all shards failed") if es
                               else solr_error(503, "no servers hosting shard"))
                elif mode == "slow":
                    server.closing.wait(30)
                else:
                    return False
                return True

        return Handler
