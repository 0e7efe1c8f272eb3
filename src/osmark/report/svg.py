"""Inline SVG charts for the HTML report: plain strings, no JavaScript, no libraries.

The report must open offline years from now, so the charts are static SVG drawn here.
Coordinates are rounded to one decimal to keep a many-run report small; colours come
from CSS classes (s0, s1, … per system; v-faster, … per verdict) defined once in the
page's style sheet rather than repeated on every element.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from html import escape

WIDTH = 760.0
STRIP_WIDTH = 480.0  # strip plots are small multiples, two abreast on a wide screen
FONT_CHAR = 6.8  # the width of one character at the charts' 11px font, digits included
PALETTE_SIZE = 10  # classes s0…s9; systems beyond reuse them


def num(value: float) -> str:
    """A coordinate: one decimal, no trailing '.0', no '-0'."""
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def esc(text: str) -> str:
    return escape(text, quote=True)


def system_class(position: int) -> str:
    return f"s{position % PALETTE_SIZE}"


def clip_label(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def nice_step(span: float, count: int) -> float:
    """A 1-2-5 step that cuts span into about count intervals."""
    raw = span / max(count, 1)
    if raw <= 0 or not math.isfinite(raw):
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values between low and high (multiples of a 1-2-5 step)."""
    if high <= low:
        return [low]
    step = nice_step(high - low, count)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(i * step, 12) for i in range(first, last + 1)]


def ratio_ticks(low: float, high: float) -> list[float]:
    """Ticks for a log ratio axis: linear 1-2-5 ticks when narrow, 1-2-5 decades when wide."""
    if high / low <= 4:
        return [t for t in nice_ticks(low, high, 8) if t > 0]
    ticks = [m * 10.0**k for k in range(-4, 5) for m in (1, 2, 5)]
    ticks = [round(t, 12) for t in ticks if low <= t <= high]
    if len(ticks) > 8:
        ticks = [t for t in ticks if math.isclose(math.log10(t), round(math.log10(t)))]
    return ticks


def tick_label(value: float) -> str:
    return f"{value:.6g}"


@dataclass
class RatioBar:
    system: int  # position in the comparison (1 … n-1): picks the colour
    ratio: float
    low: float | None
    high: float | None
    verdict: str  # a CSS-safe verdict key: faster, slower, same, unknown
    tip: str  # the tooltip: the full figure in words


@dataclass
class RatioGroup:
    label: str
    bars: list[RatioBar] = field(default_factory=list)


def _log_domain(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if v > 0 and math.isfinite(v)] + [1.0]
    low, high = math.log(min(finite)), math.log(max(finite))
    low, high = min(low, math.log(0.95)), max(high, math.log(1.05))
    pad = (high - low) * 0.04
    return math.exp(low - pad), math.exp(high + pad)


def ratio_chart(groups: list[RatioGroup], title: str) -> str:
    """Horizontal bars from 1.0 to each ratio on a log scale, with CI whiskers."""
    bars_per_group = max((len(g.bars) for g in groups), default=1) or 1
    bar_h = max(4.0, min(14.0, 42.0 / bars_per_group))
    group_h = bar_h * bars_per_group + 8
    label_w = min(300.0, FONT_CHAR * max((len(g.label) for g in groups), default=10) + 12)
    left, right, top = label_w, WIDTH - 16, 8.0
    axis_y = top + group_h * len(groups) + 2
    height = axis_y + 34
    values: list[float] = []
    for group in groups:
        for bar in group.bars:
            values += [bar.ratio] + [v for v in (bar.low, bar.high) if v is not None]
    lo, hi = _log_domain(values)
    span = math.log(hi) - math.log(lo)

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return left + (math.log(v) - math.log(lo)) / span * (right - left)

    out = [_svg_open("chart chart-ratios", height, title)]
    out.append('<g class="grid">')
    for tick in ratio_ticks(lo, hi):
        out.append(f'<path d="M{num(x(tick))} {num(top)}V{num(axis_y)}"/>')
    out.append("</g>")
    for i, group in enumerate(groups):
        y0 = top + i * group_h + 4
        label = clip_label(group.label, int((label_w - 12) / FONT_CHAR))
        y_label = y0 + bar_h * len(group.bars) / 2
        out.append(f'<text class="label" x="{num(left - 8)}" y="{num(y_label)}"'
                   f' dy=".35em" text-anchor="end"><title>{esc(group.label)}</title>'
                   f"{esc(label)}</text>")
        for j, bar in enumerate(group.bars):
            if not math.isfinite(bar.ratio) or bar.ratio <= 0:
                continue
            y = y0 + j * bar_h
            x1, x2 = x(1.0), x(bar.ratio)
            out.append(f'<rect class="bar {system_class(bar.system)} v-{bar.verdict}" '
                       f'x="{num(min(x1, x2))}" y="{num(y + 0.5)}" '
                       f'width="{num(max(abs(x2 - x1), 1.0))}" height="{num(bar_h - 1)}">'
                       f"<title>{esc(bar.tip)}</title></rect>")
            if bar.low is not None and bar.high is not None:
                ym, cap = y + bar_h / 2, max(1.5, bar_h / 2 - 1)
                xl, xh = x(bar.low), x(bar.high)
                out.append(f'<path class="whisker" d="M{num(xl)} {num(ym)}H{num(xh)}'
                           f"M{num(xl)} {num(ym - cap)}v{num(2 * cap)}"
                           f'M{num(xh)} {num(ym - cap)}v{num(2 * cap)}"/>')
    out.append(f'<path class="ref" d="M{num(x(1.0))} {num(top)}V{num(axis_y)}"/>')
    out.append(_x_axis(ratio_ticks(lo, hi), x, left, right, axis_y,
                       lambda t: tick_label(t) + "×",
                       "performance ratio against the baseline (log scale; above 1 is faster)"))
    out.append("</svg>")
    return "".join(out)


@dataclass
class StripRow:
    label: str
    system: int
    values: list[float]  # the samples, divided by the reference median
    median: float | None  # the row's median, divided by the reference median
    note: str | None = None  # said in place of dots ("no samples")
    tip: str | None = None  # the row's tooltip


JITTER = (0, -3, 3)  # dots sorted by x take these y offsets in turn, so neighbours show


def _tenths(q: int) -> str:
    sign, q = ("-" if q < 0 else ""), abs(q)
    return f"{sign}{q // 10}" + (f".{q % 10}" if q % 10 else "")


def dot_path(xs: list[float]) -> str:
    """Dots as zero-length round-capped segments of one path, in relative moves.

    A 10-run report draws ~10,000 samples; an element per dot would make the file
    several times larger than this (about 8 bytes a dot). Count dots by counting 'h0'.
    """
    if not xs:
        return ""
    tenths = sorted(round(x * 10) for x in xs)
    levels = [JITTER[i % len(JITTER)] * 10 for i in range(len(tenths))]
    out = [f"M{_tenths(tenths[0])} {_tenths(levels[0])}h0"]
    for i in range(1, len(tenths)):
        dx, dy = tenths[i] - tenths[i - 1], levels[i] - levels[i - 1]
        dy_text = _tenths(dy)
        out.append(f"m{_tenths(dx)}{dy_text if dy < 0 else ' ' + dy_text}h0")
    return "".join(out)


def strip_chart(rows: list[StripRow], title: str, label_w: float) -> str:
    """One test: a row of sample dots per system on a scale relative to the reference median."""
    row_h, top = 14.0, 4.0
    left, right = label_w, STRIP_WIDTH - 14
    axis_y = top + row_h * len(rows) + 2
    height = axis_y + 20
    points = [v for r in rows for v in r.values] + [r.median for r in rows
                                                     if r.median is not None]
    points = [p for p in points if math.isfinite(p)] + [1.0]
    lo, hi = min(points), max(points)
    lo, hi = min(lo, 0.995), max(hi, 1.005)
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (right - left)

    ticks = nice_ticks(lo, hi, 4)
    out = [_svg_open("chart chart-samples", height, title, STRIP_WIDTH)]
    out.append('<g class="grid">')
    out.extend(f'<path d="M{num(x(t))} {num(top)}V{num(axis_y)}"/>' for t in ticks)
    out.append("</g>")
    out.append(f'<path class="ref" d="M{num(x(1.0))} {num(top)}V{num(axis_y)}"/>')
    for i, row in enumerate(rows):
        y = top + i * row_h + row_h / 2
        label = clip_label(row.label, int((label_w - 10) / FONT_CHAR))
        out.append(f'<text class="label" x="{num(left - 6)}" y="{num(y)}" dy=".35em" '
                   f'text-anchor="end">{esc(label)}</text>')
        tip = f"<title>{esc(row.tip)}</title>" if row.tip else ""
        out.append(f'<g class="strip {system_class(row.system)}" '
                   f'transform="translate(0 {num(y)})">{tip}')
        dots = dot_path([x(v) for v in row.values if math.isfinite(v)])
        if dots:
            out.append(f'<path class="samples" d="{dots}"/>')
        if row.median is not None and math.isfinite(row.median):
            out.append(f'<path class="median" d="M{num(x(row.median))} -6v12"/>')
        if row.note:
            out.append(f'<text class="note" x="{num(left + 4)}" dy=".35em">{esc(row.note)}</text>')
        out.append("</g>")

    def percent(t: float) -> str:
        change = (t - 1.0) * 100
        if abs(change) < 1e-9:
            return "0"
        return f"{change:+.6g}%".replace("-", "−")

    out.append(_x_axis(ticks, x, left, right, axis_y, percent, None))
    out.append("</svg>")
    return "".join(out)


@dataclass
class HistoryPoint:
    when: datetime
    value: float
    tip: str


@dataclass
class Series:
    label: str
    style: int  # colour class
    points: list[HistoryPoint]


def history_chart(series: list[Series], title: str, y_title: str) -> str:
    """The overall index against run start time, one line per copy count."""
    left, right, top, height = 64.0, WIDTH - 20, 12.0, 280.0
    axis_y = height - 44
    points = [p for s in series for p in s.points]
    t0 = min(p.when for p in points).timestamp()
    t1 = max(p.when for p in points).timestamp()
    if t1 <= t0:
        t0, t1 = t0 - 3600, t1 + 3600
    pad_t = (t1 - t0) * 0.04
    t0, t1 = t0 - pad_t, t1 + pad_t
    v0, v1 = min(p.value for p in points), max(p.value for p in points)
    if v1 - v0 < max(abs(v1), 1.0) * 0.02:
        mid = (v0 + v1) / 2
        v0, v1 = mid - max(abs(mid), 1.0) * 0.02, mid + max(abs(mid), 1.0) * 0.02
    pad_v = (v1 - v0) * 0.08
    v0, v1 = v0 - pad_v, v1 + pad_v

    def x(when: datetime) -> float:
        return left + (when.timestamp() - t0) / (t1 - t0) * (right - left)

    def y(value: float) -> float:
        return axis_y - (value - v0) / (v1 - v0) * (axis_y - top)

    out = [_svg_open("chart chart-history", height, title)]
    y_ticks = nice_ticks(v0, v1, 5)
    out.append('<g class="grid">')
    out.extend(f'<path d="M{num(left)} {num(y(t))}H{num(right)}"/>' for t in y_ticks)
    out.append("</g>")
    out.append('<g class="axis">')
    out.append(f'<path d="M{num(left)} {num(top)}V{num(axis_y)}H{num(right)}"/>')
    out.extend(f'<text x="{num(left - 6)}" y="{num(y(t))}" dy=".35em" text-anchor="end">'
               f"{tick_label(t)}</text>" for t in y_ticks)
    same_day = len({p.when.date() for p in points}) == 1
    span = t1 - t0
    for k in range(5):
        stamp = datetime.fromtimestamp(t0 + span * (0.5 + k * 2) / 10, points[0].when.tzinfo)
        text = stamp.strftime("%H:%M" if same_day else
                              "%m-%d %H:%M" if span < 7 * 86400 else "%Y-%m-%d")
        out.append(f'<text x="{num(x(stamp))}" y="{num(axis_y + 16)}" text-anchor="middle">'
                   f"{text}</text>")
    when_title = "run start (UTC" + (f", {points[0].when:%Y-%m-%d})" if same_day else ")")
    out.append(f'<text class="title" x="{num((left + right) / 2)}" y="{num(height - 8)}" '
               f'text-anchor="middle">{esc(when_title)}</text>')
    out.append(f'<text class="title" transform="translate(14 {num((top + axis_y) / 2)}) '
               f'rotate(-90)" text-anchor="middle">{esc(y_title)}</text>')
    out.append("</g>")
    for s in series:
        ordered = sorted(s.points, key=lambda p: p.when)
        cls = system_class(s.style)
        if len(ordered) >= 2:
            d = "M" + "L".join(f"{num(x(p.when))} {num(y(p.value))}" for p in ordered)
            out.append(f'<path class="history-line {cls}" d="{d}"><title>{esc(s.label)}</title>'
                       "</path>")
        out.extend(f'<circle class="point {cls}" cx="{num(x(p.when))}" cy="{num(y(p.value))}" '
                   f'r="4"><title>{esc(p.tip)}</title></circle>' for p in ordered)
    out.append("</svg>")
    return "".join(out)


def _svg_open(classes: str, height: float, title: str, width: float = WIDTH) -> str:
    return (f'<svg class="{classes}" role="img" '
            f'width="{num(width)}" height="{num(height)}" '
            f'viewBox="0 0 {num(width)} {num(height)}" aria-label="{esc(title)}">'
            f"<title>{esc(title)}</title>")


def _x_axis(ticks: list[float], x: Callable[[float], float], left: float, right: float,
            axis_y: float, label: Callable[[float], str], caption: str | None) -> str:
    """The x axis line, tick labels and an optional caption under it."""
    out = [f'<g class="axis"><path d="M{num(left)} {num(axis_y)}H{num(right)}"/>']
    out.extend(f'<text x="{num(x(t))}" y="{num(axis_y + 13)}" text-anchor="middle">'
               f"{esc(label(t))}</text>" for t in ticks)
    if caption:
        out.append(f'<text class="title" x="{num((left + right) / 2)}" y="{num(axis_y + 29)}" '
                   f'text-anchor="middle">{esc(caption)}</text>')
    out.append("</g>")
    return "".join(out)


@dataclass
class CurvePoint:
    x: float  # e.g. a working-set size in bytes
    y: float  # e.g. ns per load
    tip: str


@dataclass
class Curve:
    label: str
    style: int
    points: list[CurvePoint]


def _size_label(value: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def curve_chart(curves: list[Curve], title: str, x_title: str, y_title: str) -> str:
    """y against x, both on log scales (x in bytes, powers of 4 labelled): the memory
    latency curve, whose steps are the cache levels."""
    left, right, top, height = 64.0, WIDTH - 20, 12.0, 300.0
    axis_y = height - 44
    points = [p for c in curves for p in c.points if p.x > 0 and p.y > 0]
    lx0, lx1 = math.log2(min(p.x for p in points)), math.log2(max(p.x for p in points))
    if lx1 <= lx0:
        lx0, lx1 = lx0 - 1, lx1 + 1
    ly0, ly1 = math.log10(min(p.y for p in points)), math.log10(max(p.y for p in points))
    if ly1 - ly0 < 0.3:
        mid = (ly0 + ly1) / 2
        ly0, ly1 = mid - 0.15, mid + 0.15
    pad = (ly1 - ly0) * 0.08
    ly0, ly1 = ly0 - pad, ly1 + pad

    def x(value: float) -> float:
        return left + (math.log2(value) - lx0) / (lx1 - lx0) * (right - left)

    def y(value: float) -> float:
        return axis_y - (math.log10(value) - ly0) / (ly1 - ly0) * (axis_y - top)

    y_ticks = [10.0**e * m for e in range(math.floor(ly0), math.ceil(ly1) + 1)
               for m in (1, 2, 5) if ly0 <= math.log10(10.0**e * m) <= ly1]
    x_ticks = [2.0**e for e in range(math.ceil(lx0), math.floor(lx1) + 1) if e % 2 == 0]
    out = [_svg_open("chart chart-curve", height, title), '<g class="grid">']
    out.extend(f'<path d="M{num(left)} {num(y(t))}H{num(right)}"/>' for t in y_ticks)
    out.append("</g>")
    out.append('<g class="axis">')
    out.append(f'<path d="M{num(left)} {num(top)}V{num(axis_y)}"/>')
    out.extend(f'<text x="{num(left - 6)}" y="{num(y(t))}" dy=".35em" text-anchor="end">'
               f"{tick_label(t)}</text>" for t in y_ticks)
    out.append(f'<text class="title" transform="translate(14 {num((top + axis_y) / 2)}) '
               f'rotate(-90)" text-anchor="middle">{esc(y_title)}</text>')
    out.append("</g>")
    out.append(_x_axis(x_ticks, x, left, right, axis_y, _size_label, x_title))
    for curve in curves:
        ordered = sorted((p for p in curve.points if p.x > 0 and p.y > 0), key=lambda p: p.x)
        cls = system_class(curve.style)
        if len(ordered) >= 2:
            d = "M" + "L".join(f"{num(x(p.x))} {num(y(p.y))}" for p in ordered)
            out.append(f'<path class="curve-line {cls}" d="{d}"><title>{esc(curve.label)}'
                       "</title></path>")
        out.extend(f'<circle class="point {cls}" cx="{num(x(p.x))}" cy="{num(y(p.y))}" r="4">'
                   f"<title>{esc(p.tip)}</title></circle>" for p in ordered)
    out.append("</svg>")
    return "".join(out)
