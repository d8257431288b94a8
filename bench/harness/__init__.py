"""The measurement harness: what the benchmarks and the tests share to start, load, fuzz and judge a server.

``bench/`` is where it lives and what puts it on the import path: a bench
script run as ``python bench/<script>.py`` has ``bench/`` as its first
import path entry, and pytest adds it too (``pythonpath`` in
``pyproject.toml``), so both import the same modules by the same names
(``from harness.serve import ServeProcess``), and spawned worker processes,
which inherit the import path, find them as well. It is not part of the shipped
``forsale`` package.

- :mod:`harness.serve`: ``forsale serve`` in a subprocess, started and polled
  until it answers (the test suite's ``serve_process`` fixture, every
  benchmark's server, the cluster's nodes);
- :mod:`harness.db`: a throw-away PostgreSQL cluster, or a fresh SQLite file;
- :mod:`harness.cluster`: nodes behind HAProxy, configured as
  ``deploy/haproxy.cfg`` ships;
- :mod:`harness.load`: the load benchmark's clients and the measurement of a
  running server;
- :mod:`harness.wsclient`, :mod:`harness.probes`, :mod:`harness.referee`,
  :mod:`harness.fuzzer`: the protocol fuzzer's client, hostile messages,
  checks against the engine, and examples;
- :mod:`harness.stats`: shares, intervals, rankings, strength reports,
  percentiles;
- :mod:`harness.population`: the measurement population of opponents
  (``pop-...`` bots, registered by importing it).
"""
