"""The fast rules kernel: Scotland Yard's rules over flat integer arrays (:mod:`._kernel`),
compiled with numba or run as plain Python (:mod:`.fast`). MCTS (:mod:`scotlandyard.ai.mcts`)
and the research playouts run on it."""
