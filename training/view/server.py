"""The viewer's web server: the standard library's ``http.server`` on 127.0.0.1 only.

The page (``static/``: HTML, JS and CSS shipped with the package, nothing fetched from the internet) asks
a small JSON API for frames, pictures (PNG drawn by the game's own render code) and the decision log, and
posts the human's choices in a live game. Requests whose ``Host`` is not this loopback address are refused
(no DNS rebinding), and a view is served only if it is allowed: in a live game only the human's seat
until the game is over.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .frames import Frames, Timeline, View, spec_of_record
from .session import PlaySession

HOST = "127.0.0.1"
STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}


class Refused(Exception):
    """A request the viewer answers with an error status and a message."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class RecordSource:
    """One game record from the file, replayed on first use."""

    label: str
    record: dict[str, Any]
    _frames: Frames | None = field(default=None, repr=False)

    @property
    def frames(self) -> Frames:
        if self._frames is None:
            from farmgames.envs import replay

            replay(self.record)  # the whole record once: a bad step is reported now, with its number
            spec = spec_of_record(self.record)
            seats = self.record.get("seats")
            names = None
            if isinstance(seats, list) and len(seats) == self.record["num_players"]:
                names = [f"player {p} ({s})" for p, s in enumerate(seats)]
            self._frames = Frames(Timeline(spec, self.record), seats=names)
        return self._frames


class ViewerApp:
    """What the server serves: the records of a file, or one live game (``session``)."""

    def __init__(
        self,
        records: list[tuple[str, dict[str, Any]]] | None = None,
        session: PlaySession | None = None,
        save_path: str | Path | None = None,
    ):
        if not records and session is None:
            raise ValueError("nothing to show: give records or a live game")
        self.sources = [RecordSource(label, rec) for label, rec in records or []]
        self.session = session
        self.save_path = Path(save_path) if save_path else None
        self.saved: str | None = None

    @property
    def mode(self) -> str:
        return "play" if self.session is not None else "record"

    def frames(self, index: int) -> Frames:
        if self.session is not None:
            return self.session.frames
        if not 0 <= index < len(self.sources):
            raise Refused(HTTPStatus.NOT_FOUND, f"no record {index}: the file has {len(self.sources)}")
        try:
            return self.sources[index].frames
        except ValueError as exc:
            raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, f"record {index} cannot be replayed: {exc}") from None

    def views(self, frames: Frames) -> list[View]:
        """The views a visitor may choose: everything and every seat, or in a live game the human's seat
        (every view once the game is over)."""
        everyone: list[View] = [None, *range(frames.timeline.num_players)]
        if self.session is not None and not self.session.over:
            return [self.session.human]
        return everyone

    def info(self, index: int) -> dict[str, Any]:
        frames = self.frames(index)
        spec = frames.spec
        t = frames.timeline
        out: dict[str, Any] = {
            "mode": self.mode,
            "game": spec.name,
            "title": spec.title,
            "num_players": t.num_players,
            "seed": t.record.get("seed"),
            "seats": frames.seats,
            "views": ["all" if v is None else v for v in self.views(frames)],
            "steps": t.steps,
            "record": index,
            "records": [s.label for s in self.sources],
            "information": spec.information,
        }
        if self.session is not None:
            s = self.session
            out.update(
                human=s.human,
                over=s.over,
                to_move=s.game.current_player,
                save_path=str(self.save_path) if self.save_path else None,
                saved=self.saved,
            )
        return out

    def view_of(self, frames: Frames, text: str | None) -> View:
        allowed = self.views(frames)
        if text in (None, "", "all"):
            view: View = None
        else:
            try:
                view = int(str(text))
            except ValueError:
                raise Refused(HTTPStatus.BAD_REQUEST, f"view must be 'all' or a seat, got {text!r}") from None
        if view not in allowed:
            raise Refused(HTTPStatus.FORBIDDEN, f"view {text!r} is not available now")
        return view

    @staticmethod
    def step_of(frames: Frames, text: str | None) -> int:
        steps = frames.timeline.steps
        if text in (None, "", "last"):
            return steps
        try:
            step = int(str(text))
        except ValueError:
            raise Refused(HTTPStatus.BAD_REQUEST, f"step must be an integer, got {text!r}") from None
        return min(max(step, 0), steps)

    def frame(self, index: int, step: str | None, view: str | None) -> dict[str, Any]:
        frames = self.frames(index)
        with self._lock():
            v = self.view_of(frames, view)
            i = self.step_of(frames, step)
            live = self.session is not None and i == frames.timeline.steps
            out = frames.frame(i, v, pending=live)
        out["view"] = "all" if v is None else v
        out["live"] = live
        return out

    def picture(self, index: int, step: str | None, view: str | None) -> bytes:
        frames = self.frames(index)
        with self._lock():
            png = frames.picture_png(self.step_of(frames, step), self.view_of(frames, view))
        if png is None:
            raise Refused(HTTPStatus.NOT_FOUND, "this game draws no picture for this view")
        return png

    def log(self, index: int, view: str | None) -> list[dict[str, Any]]:
        frames = self.frames(index)
        with self._lock():
            return list(frames.log(self.view_of(frames, view)))

    def record(self, index: int) -> dict[str, Any]:
        if self.session is not None:
            return self.session.record()
        if not 0 <= index < len(self.sources):
            raise Refused(HTTPStatus.NOT_FOUND, f"no record {index}")
        return self.sources[index].record

    def act(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.session is None:
            raise Refused(HTTPStatus.BAD_REQUEST, "this viewer shows records; start it with --play to play")
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refused(HTTPStatus.BAD_REQUEST, f"action must be an integer, got {action!r}")
        try:
            self.session.act(action)
        except ValueError as exc:
            raise Refused(HTTPStatus.CONFLICT, str(exc)) from None
        if self.session.over and self.save_path and not self.saved:
            self.save()
        return self.info(0)

    def save(self) -> dict[str, Any]:
        if self.session is None or self.save_path is None:
            raise Refused(HTTPStatus.BAD_REQUEST, "no --save-record path was given; use the download link")
        self.save_path.parent.mkdir(parents=True, exist_ok=True)
        self.save_path.write_text(json.dumps(self.session.record(), indent=1) + "\n", encoding="utf-8")
        self.saved = str(self.save_path)
        return {"saved": self.saved}

    def _lock(self) -> Any:
        return self.session.lock if self.session is not None else _RECORD_LOCK


_RECORD_LOCK = threading.RLock()  # frames share replay caches: one request at a time


def static_file(name: str) -> bytes:
    return resources.files("farmgames.training.view").joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    """GET / and /static/*, GET /api/{info,frame,picture,log,record}, POST /api/{act,save}."""

    server: ViewerServer
    server_version = "farmgames-view"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        port = self.server.server_address[1]
        return host in (f"127.0.0.1:{port}", f"localhost:{port}")

    def _send(self, status: HTTPStatus, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value: Any, status: HTTPStatus = HTTPStatus.OK, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(value).encode("utf-8"), "application/json; charset=utf-8", extra)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def _handle(self, method: str) -> None:
        if not self._host_ok():
            self._json({"error": "this viewer answers only on 127.0.0.1"}, HTTPStatus.FORBIDDEN)
            return
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            self._route(method, url.path, query)
        except Refused as exc:
            self._json({"error": str(exc)}, exc.status)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            self._json({"error": f"{type(exc).__name__}: {exc}"}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _route(self, method: str, path: str, query: dict[str, str]) -> None:
        app = self.server.app
        index = _int(query.get("record"), 0)
        if method == "GET" and path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, static_file("index.html"), STATIC["index.html"])
        elif method == "GET" and path.startswith("/static/") and path[8:] in STATIC:
            self._send(HTTPStatus.OK, static_file(path[8:]), STATIC[path[8:]])
        elif method == "GET" and path == "/api/info":
            self._json(app.info(index))
        elif method == "GET" and path == "/api/frame":
            self._json(app.frame(index, query.get("step"), query.get("view")))
        elif method == "GET" and path == "/api/picture":
            self._send(HTTPStatus.OK, app.picture(index, query.get("step"), query.get("view")), "image/png")
        elif method == "GET" and path == "/api/log":
            self._json(app.log(index, query.get("view")))
        elif method == "GET" and path == "/api/record":
            record = app.record(index)
            name = f"{record.get('game', 'game')}_seed{record.get('seed', 0)}.json"
            self._json(record, extra={"Content-Disposition": f'attachment; filename="{name}"'})
        elif method == "POST" and path == "/api/act":
            self._json(app.act(self._body()))
        elif method == "POST" and path == "/api/save":
            self._json(app.save())
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        else:
            raise Refused(HTTPStatus.NOT_FOUND, f"no such page: {method} {path}")

    def _body(self) -> dict[str, Any]:
        length = _int(self.headers.get("Content-Length"), 0)
        if not 0 <= length <= 1 << 16:
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request too large")
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            raise Refused(HTTPStatus.BAD_REQUEST, "the request body must be JSON") from None
        if not isinstance(body, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
        return body


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text not in (None, "") else default  # type: ignore[arg-type]
    except ValueError:
        return default


class ViewerServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`ViewerApp`, on 127.0.0.1 (``port=0``: the OS picks a free one)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, app: ViewerApp, port: int = 0, verbose: bool = False):
        super().__init__((HOST, int(port)), Handler)
        self.app = app
        self.verbose = verbose
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    def start(self) -> ViewerServer:
        """Serve in a background thread (tests, notebooks); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


__all__ = ["HOST", "Handler", "RecordSource", "ViewerApp", "ViewerServer"]
