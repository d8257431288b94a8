"""PPO with action masking for For Sale, in one file (PyTorch on CPU).

One learner seat (drawn at random every game) plays three ``value`` bots at
4 players under the official rules, in :class:`forsale.envs.vector.ForSaleVectorEnv`
(thousands of games stepped at once). The reward is the game's win share
(winners share 1). The structure follows CleanRL's single-file ``ppo.py``:
collect ``num_envs x num_steps`` steps, compute GAE advantages, then a few
epochs of clipped-surrogate minibatch updates. Illegal actions get a logit
of -1e9, so the policy never samples them and their gradient is zero.

Outputs: the actor's weights as a numpy ``.npz`` (what the ``ppo`` bot loads,
no torch needed), the learning curve as CSV and as a PNG plot.

    pip install -e '.[train]'
    python examples/ppo_forsale.py --total-steps 20000000 --weights ppo-4p.npz --plot curve.png

See ``docs/ppo.md`` for the figures of the shipped policy.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch
from torch import nn

from forsale.envs.vector import ForSaleVectorEnv


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--total-steps", type=int, default=20_000_000, help="learner steps to train for")
    p.add_argument("--num-envs", type=int, default=512, help="games stepped at once")
    p.add_argument("--num-steps", type=int, default=64, help="steps per game per rollout")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="value", help="vectorised opponent policy: value or random")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="games are short and end: no discount")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=8)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=1, help="torch threads (the machine may be shared)")
    p.add_argument("--weights", type=Path, default=Path("ppo-4p.npz"), help="where the policy's .npz goes")
    p.add_argument("--curve", type=Path, default=Path("ppo-curve.csv"), help="learning curve (CSV)")
    p.add_argument("--plot", type=Path, default=Path("ppo-curve.png"), help="learning curve (PNG)")
    p.add_argument("--log-every", type=int, default=10, help="updates between log lines and saves")
    return p.parse_args(argv)


def layer(inputs: int, outputs: int, gain: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias (the usual PPO initialisation)."""
    lin = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(lin.weight, gain)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs (tanh); only the actor is exported."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.actor = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, num_actions, 0.01)
        )
        self.critic = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0)
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """``(action, log_prob, entropy, value)``; samples the action unless one is given."""
        logits = self.actor(obs).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def export(agent: Agent, path: Path, players: int, meta: dict[str, str]) -> None:
    """The actor's layers as ``w0, b0, w1, b1, ...`` (``x @ w + b``, tanh between), plus metadata."""
    linears = [m for m in agent.actor if isinstance(m, nn.Linear)]
    arrays = {}
    for i, lin in enumerate(linears):
        arrays[f"w{i}"] = lin.weight.detach().numpy().T.astype(np.float32)
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        players=np.int64(players),
        activation=np.str_("tanh"),
        **arrays,
        **{f"meta_{k}": np.str_(v) for k, v in meta.items()},
    )


def plot(rows: list[dict[str, float]], path: Path, title: str, players: int) -> None:
    """Win share (and the fair share) against learner steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["steps"] / 1e6 for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.plot(steps, [r["win_share"] for r in rows], label="win share over its last 4,000 training games")
    ax.axhline(1 / players, color="grey", ls="--", lw=1, label=f"fair share (1/{players})")
    ax.set_xlabel("learner steps (millions)")
    ax.set_ylabel("win share")
    ax.set_title(f"{title}: {rows[-1]['games']:,.0f} games, {rows[-1]['seconds'] / 60:.0f} min")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env = ForSaleVectorEnv(num_envs=args.num_envs, players=args.players, opponents=args.opponents, seat="random")
    obs_size, num_actions = env.encoding.obs_size, env.encoding.num_actions
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    B, T = args.num_envs, args.num_steps
    batch = B * T
    minibatch = batch // args.minibatches
    updates = max(1, args.total_steps // batch)
    obs_buf = torch.zeros((T, B, obs_size))
    mask_buf = torch.zeros((T, B, num_actions), dtype=torch.bool)
    act_buf = torch.zeros((T, B), dtype=torch.long)
    logp_buf = torch.zeros((T, B))
    rew_buf = torch.zeros((T, B))
    done_buf = torch.zeros((T, B))
    val_buf = torch.zeros((T, B))

    obs, _ = env.reset(seed=args.seed)
    next_obs = torch.from_numpy(obs["observation"])
    next_mask = torch.from_numpy(obs["action_mask"]).bool()
    next_done = torch.zeros(B)
    recent: deque[float] = deque(maxlen=4000)  # win shares of the last games played
    games = 0
    rows: list[dict[str, float]] = []
    title = f"PPO vs 3 x {args.opponents}, {args.players} players"
    start = time.time()
    print(f"{updates} updates of {batch} steps ({B} games x {T}); obs {obs_size}, actions {num_actions}", flush=True)

    for update in range(1, updates + 1):
        for group in optimizer.param_groups:  # linear learning-rate decay to 0
            group["lr"] = args.lr * (1.0 - (update - 1) / updates)
        for t in range(T):
            obs_buf[t], mask_buf[t], done_buf[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, reward, terminated, truncated, _ = env.step(action.numpy())
            rew_buf[t] = torch.from_numpy(reward).float()
            ended = terminated | truncated
            next_done = torch.from_numpy(ended).float()
            next_obs = torch.from_numpy(obs["observation"])  # SAME_STEP autoreset: a new game's first decision
            next_mask = torch.from_numpy(obs["action_mask"]).bool()
            recent.extend(reward[ended].tolist())
            games += int(ended.sum())

        with torch.no_grad():  # generalised advantage estimation, backwards through the rollout
            next_value = agent.value(next_obs)
            adv = torch.zeros((T, B))
            last = torch.zeros(B)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else done_buf[t + 1])
                following = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * following * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            returns = adv + val_buf

        b_obs, b_mask = obs_buf.reshape(batch, obs_size), mask_buf.reshape(batch, num_actions)
        b_act, b_logp = act_buf.reshape(batch), logp_buf.reshape(batch)
        b_adv, b_ret = adv.reshape(batch), returns.reshape(batch)
        for _ in range(args.epochs):
            order = torch.randperm(batch)
            for lo in range(0, batch, minibatch):
                mb = order[lo : lo + minibatch]
                _, logp, entropy, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        steps = update * batch
        if update % args.log_every == 0 or update == updates:
            share = float(np.mean(recent)) if recent else float("nan")
            rows.append({"steps": steps, "games": games, "win_share": share, "seconds": time.time() - start})
            sps = steps / (time.time() - start)
            print(
                f"update {update}/{updates} steps {steps:,} games {games:,} win share {share:.3f} "
                f"(last {len(recent)}) entropy {entropy.mean().item():.3f} value loss {v_loss.item():.4f} "
                f"{sps:,.0f} steps/s",
                flush=True,
            )
            meta = {
                "opponents": args.opponents,
                "steps": str(steps),
                "seed": str(args.seed),
                "win_share": f"{share:.4f}",
            }
            export(agent, args.weights, args.players, meta)
            args.curve.parent.mkdir(parents=True, exist_ok=True)
            with args.curve.open("w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
            plot(rows, args.plot, title, args.players)
    print(f"wrote {args.weights}, {args.curve}, {args.plot}", flush=True)


if __name__ == "__main__":
    main()
