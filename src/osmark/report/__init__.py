"""`osmark report`: one self-contained, offline HTML file for a run or a comparison."""

from osmark.report.html import build_report, write_report

__all__ = ["build_report", "write_report"]
