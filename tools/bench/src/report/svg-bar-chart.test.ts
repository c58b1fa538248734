import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeXml, renderBarChartSvg } from './svg-bar-chart.js';

function widths(svg: string): number[] {
  return [...svg.matchAll(/<rect x="\d+" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
}

describe('renderBarChartSvg', () => {
  test('draws one bar per value, scaled to the largest, with labels and formatted values', () => {
    const svg = renderBarChartSvg({
      title: 'Throughput',
      subtitle: 'events/s',
      bars: [
        { label: 'raw', value: 100_000 },
        { label: 'kubeloop', value: 50_000, emphasis: true },
      ],
    });
    assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
    assert.ok(svg.trimEnd().endsWith('</svg>'));
    const [raw, ours] = widths(svg);
    assert.ok(raw !== undefined && ours !== undefined);
    assert.ok(Math.abs(raw / ours - 2) < 0.01, `${raw} vs ${ours}`);
    assert.match(svg, />100,000</);
    assert.match(svg, />kubeloop</);
    assert.match(svg, /fill="#1f6feb"/, 'the emphasised bar has the accent colour');
  });

  test('prints n/a and draws no bar for a missing value', () => {
    const svg = renderBarChartSvg({ title: 't', subtitle: 's', bars: [{ label: 'dot-i', value: Number.NaN }, { label: 'x', value: 1 }] });
    assert.equal(widths(svg).length, 1);
    assert.match(svg, />n\/a</);
  });

  test('escapes markup in every text and uses the custom formatter', () => {
    const svg = renderBarChartSvg({ title: 'a <b> & "c"', subtitle: "it's", bars: [{ label: '<x>', value: 2.5 }], format: (v) => `${v} us` });
    assert.doesNotMatch(svg, /<b>|<x>/);
    assert.match(svg, /a &lt;b&gt; &amp; &quot;c&quot;/);
    assert.match(svg, />2.5 us</);
    assert.equal(escapeXml(`<&>'"`), '&lt;&amp;&gt;&apos;&quot;');
  });
});
