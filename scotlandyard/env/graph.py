"""The board as a graph, for graph neural networks: edge lists and adjacency matrices.

Nodes are stations 1..199 as indices 0..198 (the observation's station order). Edges are
undirected and listed both ways, as PyTorch Geometric's ``edge_index`` expects.

>>> from scotlandyard.env import adjacency
>>> g = adjacency("classic")
>>> g["edge_index"].shape[0], g["edge_type"].shape == (g["edge_index"].shape[1],)
(2, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..board import BoardName, Transport, london

TRANSPORTS = ("taxi", "bus", "underground", "ferry")


def adjacency(board: BoardName = "classic") -> dict[str, Any]:
    """The ``board``'s links (``"classic"`` or ``"2014"``):

    - ``edge_index`` ``int64[2, E]``: both directions of every link;
    - ``edge_type`` ``int64[E]``: 0 taxi, 1 bus, 2 underground, 3 ferry (black tickets only);
    - ``matrix`` ``uint8[4, 199, 199]``: one 0/1 adjacency matrix per transport;
    - ``positions`` ``float32[199, 2]``: drawing coordinates (x, y, y down), over the board size;
    - ``transports``: the names of the edge types.
    """
    b = london(board)
    src: list[int] = []
    dst: list[int] = []
    typ: list[int] = []
    matrix = np.zeros((4, b.stations, b.stations), np.uint8)
    for t in Transport:
        for u, v in b.edges[t]:
            src += [u - 1, v - 1]
            dst += [v - 1, u - 1]
            typ += [int(t), int(t)]
            matrix[int(t), u - 1, v - 1] = matrix[int(t), v - 1, u - 1] = 1
    pos = np.array([b.positions[s] for s in b.all_stations], np.float32)
    pos /= np.array([b.width, b.height], np.float32)
    return {"edge_index": np.array([src, dst], np.int64), "edge_type": np.array(typ, np.int64),
            "matrix": matrix, "positions": pos, "transports": TRANSPORTS}
