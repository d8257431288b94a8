"""examples/online_pettingzoo.py trains its tiny policy in the PettingZoo environment, then plays a whole game
online as a bot account through ``forsale.client``: a person challenges it on a real ``forsale serve``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from harness.serve import checkout_env

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "online_pettingzoo.py"
PASSWORD = "correct horse battery staple"


def signed_up(base: str, name: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=30)
    assert http.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 201
    return http


def test_the_trained_policy_plays_a_game_online(serve_process: Any, tmp_path: Path) -> None:
    server = serve_process(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path).start()
    try:
        bot = signed_up(server.base, "Zoe the policy")
        assert bot.post("/api/me/bot", json={"password": PASSWORD}).status_code == 200
        token = bot.post("/api/me/tokens", json={"name": "example", "password": PASSWORD}).json()["token"]
        command = [sys.executable, str(SCRIPT), "--server", server.base, "--games", "1", "--rounds", "1",
                   "--episodes", "2"]  # fmt: skip
        example = subprocess.Popen(
            command, env={**checkout_env(), "FORSALE_TOKEN": token}, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            ann = signed_up(server.base, "Ann")
            deadline = time.monotonic() + 60
            while True:  # a challenge made while it still trains waits for it (the bot reads pending ones first)
                made = ann.post("/api/challenges", json={"bot": "Zoe the policy", "players": 2}).json()["challenge"]
                while (now := ann.get(f"/api/challenges/{made['id']}").json()["challenge"])["status"] == "pending":
                    assert time.monotonic() < deadline, "the example never answered"
                    time.sleep(0.2)
                if now["status"] == "accepted":
                    break
            token_ann = ann.post(f"/api/tables/{now['table']}/resume", json={}).json()["token"]
            with connect(f"{server.ws}/ws/tables/{now['table']}") as ws:
                ws.send(json.dumps({"type": "hello", "token": token_ann}))
                acted = -1
                while True:
                    msg = json.loads(ws.recv(timeout=60))
                    if msg["type"] not in ("welcome", "state"):
                        continue
                    if msg["status"] == "over":
                        break
                    if msg["view"]["legal"] and msg["seq"] > acted:
                        acted = msg["seq"]
                        ws.send(json.dumps({"type": "act", "action": msg["view"]["legal"][0]}))
            out, _ = example.communicate(timeout=60)
        finally:
            if example.poll() is None:
                example.kill()
        assert example.returncode == 0, out
        assert "round 1/1: win share" in out and "online as Zoe the policy" in out
        assert f"table {now['table']}: " in out
    finally:
        server.stop()
