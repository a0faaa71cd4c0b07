// Bar charts drawn on the server as SVG (README "Console"): stacked bars per day, one colour per
// series (classes of console.css, no inline style), a legend, and the same numbers as a table for
// whoever cannot see the picture (the text alternative).
import { TableScroll } from "./table";

export interface ChartSeries {
  label: string;
  values: number[];
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 40;
const BOTTOM = 24;
const TOP = 10;

export function BarChart(props: { id: string; title: string; days: string[]; series: ChartSeries[] }) {
  const { id, days, series } = props;
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, step * 0.8);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const sum = totals.reduce((a, b) => a + b, 0);
  const summary = `${props.title}: ${sum} in ${days.length} days from ${days[0]} to ${days[days.length - 1]}; at most ${Math.max(...totals)} on one day.`;
  const labelEvery = Math.ceil(days.length / 6);
  return (
    <figure class="chart-figure" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{props.title}</figcaption>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        xmlns="http://www.w3.org/2000/svg"
      >
        <title id={`${id}-title`}>{props.title}</title>
        <desc id={`${id}-desc`}>{summary}</desc>
        <line class="chart-axis" x1={LEFT} y1={TOP + plotHeight} x2={WIDTH - 8} y2={TOP + plotHeight} />
        <line class="chart-axis" x1={LEFT} y1={TOP} x2={LEFT} y2={TOP + plotHeight} />
        <text class="chart-label" x={LEFT - 4} y={TOP + 10} text-anchor="end">
          {String(max)}
        </text>
        <text class="chart-label" x={LEFT - 4} y={TOP + plotHeight} text-anchor="end">
          0
        </text>
        {days.map((day, i) => {
          let base = 0;
          const x = LEFT + i * step + (step - barWidth) / 2;
          return (
            <g>
              {series.map((s, k) => {
                const value = s.values[i] ?? 0;
                if (value === 0) return null;
                const top = y(base + value);
                const height = y(base) - top;
                base += value;
                return (
                  <rect
                    class={`chart-bar-${k}`}
                    x={x.toFixed(1)}
                    y={top.toFixed(1)}
                    width={barWidth.toFixed(1)}
                    height={height.toFixed(1)}
                  />
                );
              })}
              {i % labelEvery === 0 && (
                <text
                  class="chart-label"
                  x={(x + barWidth / 2).toFixed(1)}
                  y={HEIGHT - 6}
                  text-anchor="middle"
                >
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      {series.length > 1 && (
        <ul class="legend">
          {series.map((s, k) => (
            <li>
              <span class={`swatch swatch-${k}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      )}
      <details class="text-alternative">
        <summary>{`${props.title} as a table`}</summary>
        <TableScroll label={props.title}>
          <table>
            <caption>{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" class="numeric">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, i) => (
                <tr>
                  <th scope="row">{day}</th>
                  {series.map((s) => (
                    <td class="numeric">{String(s.values[i] ?? 0)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </details>
    </figure>
  );
}
