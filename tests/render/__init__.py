"""Tests of the render package: palette, geometry, board pixels, replay GIF, demo and bench."""
