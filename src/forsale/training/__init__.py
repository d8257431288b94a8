"""Training the learned parts of the bots (``forsale train``; the ``train`` extra).

- :mod:`forsale.training.population`: a parametric population of vectorised
  policies on :class:`forsale.sim.step.Games`, drawn afresh for every seat of
  every game, so the data covers many ways of playing;
- :mod:`forsale.training.data`: positions met in those games, as the value
  model's features (computed on the arrays, equal to
  :func:`forsale.bots.valuemodel.features` of the seat's view), labelled with
  each seat's final win share;
- :mod:`forsale.training.value`: the PyTorch fit and the export to the
  ``.npz`` that :mod:`forsale.bots.valuemodel` plays with numpy alone.

Only this package imports torch; playing never does.
"""
