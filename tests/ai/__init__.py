"""Tests of the AI package (ai/): the levels, their search and budget, luck, calibration, arena."""
