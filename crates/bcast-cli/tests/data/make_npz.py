#!/usr/bin/env python3
"""Writes the .npz fixtures that crates/bcast-cli/tests/help_and_names.rs feeds to bcast, with
numpy, to check that an .npz archive is named as such rather than as a bad .npy file.

    python3 crates/bcast-cli/tests/data/make_npz.py      # rewrites the two files beside it

- arrays.npz: what `numpy.savez` writes for two arrays (a zip of a.npy and b.npy);
- empty.npz: what `numpy.savez` writes for no arrays (an empty zip: only its end record).
"""

import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

np.savez(HERE / "arrays.npz", a=np.arange(3, dtype=np.float32), b=np.ones((2, 3), np.int64))
np.savez(HERE / "empty.npz")
