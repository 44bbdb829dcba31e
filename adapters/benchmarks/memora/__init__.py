"""Memora: persona histories by period, judged per criterion and scored with FAMA."""
