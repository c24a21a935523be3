// SPDX-License-Identifier: MIT
/*
 * c2c HTML report: one self-contained page (no network, no external files).
 *
 * Invariants: the page embeds the JSON of hws_c2c__render_json_top() (offsets and rows only
 * for the top lines, so huge --show-all reports stay loadable) in a
 * <script type="application/json"> block with every '<', '>' and '&' written as \u003c, \u003e,
 * \u0026 (so no string in the data can close the script or open an HTML comment in it: names
 * from the file are data, never markup), and inline CSS/JS that builds, after load:
 *  - #lines: the shared cache-line table, sortable by clicking any header (numeric or text),
 *    or on load with "#sort=COLUMN" / "#sort=COLUMN:asc" in the URL;
 *  - #heatmaps: for the top lines, a grid of offsets (columns, one per 8-byte slot or per
 *    access offset) by thread (rows), cell colour = samples, "W" marks writes, red/blue
 *    outlines mark false/true sharing offsets;
 *  - per-line offset tables (readers/writers, code, symbol, source line) and, when the
 *    JSON has them, the line's call paths (table.callchains).
 * Everything visible is text or DOM, so `chromium --dump-dom` shows it for tests.
 */
#include <errno.h>
#include <string.h>

#include <hwsample/c2c.h>
#include <hwsample/errors.h>

#include "analysis/c2c_int.h"
#include "analysis/report_view.h"

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>hwsample c2c: ";

static const char page_style[] =
    "</title>\n<style>\n"
    "body{font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:16px;color:#222}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 6px}\n"
    ".meta{color:#555;margin-bottom:8px}\n"
    "table{border-collapse:collapse;margin:6px 0}\n"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}\n"
    "th{background:#eef;cursor:pointer;user-select:none}th.asc:after{content:' \\25b2'}"
    "th.desc:after{content:' \\25bc'}\n"
    "td.l{text-align:left}tr:nth-child(even) td{background:#fafafa}\n"
    ".wrap{overflow-x:auto}td.ev{white-space:normal;min-width:480px;text-align:left;font-size:12px}"
    "\n"
    ".cls-false-sharing{color:#b00;font-weight:600}.cls-true-sharing{color:#05a;"
    "font-weight:600}.cls-mixed{color:#808;font-weight:600}.cls-unresolved{color:#a60}\n"
    ".hm{display:inline-block;margin:6px 18px 12px 0;vertical-align:top}\n"
    ".hm table td{width:26px;height:20px;padding:0;text-align:center;font-size:10px;"
    "border:1px solid #fff}\n"
    ".hm td.fs{outline:2px solid #d00;outline-offset:-2px}.hm td.ts{outline:2px solid #06c;"
    "outline-offset:-2px}\n"
    ".hm th{background:#fff;cursor:default;font-weight:normal;font-size:10px;border:none}\n"
    ".legend span{display:inline-block;padding:0 6px;margin-right:6px}\n"
    "details{margin:4px 0}summary{cursor:pointer}\n"
    "</style>\n</head>\n<body>\n";

static const char page_body[] =
    "<h1>hwsample c2c: contended cache lines</h1>\n"
    "<div class=\"meta\" id=\"meta\"></div>\n"
    "<h2>Shared data cache line table</h2>\n"
    "<div class=\"meta\">Click a column header to sort.</div>\n"
    "<div class=\"wrap\"><table id=\"lines\"><thead></thead><tbody></tbody></table></div>\n"
    "<h2>Offsets by thread (top lines)</h2>\n"
    "<div class=\"legend\"><span style=\"outline:2px solid #d00\">false sharing offset</span>"
    "<span style=\"outline:2px solid #06c\">true sharing offset</span>"
    "<span>W = the thread stores there; colour = samples</span></div>\n"
    "<div id=\"heatmaps\"></div>\n"
    "<h2>Offsets of the top lines</h2>\n<div id=\"offsets\"></div>\n";

static const char page_script[] =
    "<script>\n"
    "(function(){\n"
    "var D=JSON.parse(document.getElementById('c2c-data').textContent);\n"
    "function el(t,a,txt){var e=document.createElement(t);if(a)for(var k in a)"
    "e.setAttribute(k,a[k]);if(txt!==undefined)e.textContent=txt;return e;}\n"
    "var T=D.totals;\n"
    "document.getElementById('meta').textContent='Records '+T.records+', loads '+T.loads+"
    "', stores '+T.stores+', HITM '+T.hitm.total+' (local '+T.hitm.local+', remote '+"
    "T.hitm.remote+'), peer '+T.peer.total+', cache line '+D.line_size+' bytes ('+"
    "D.line_size_source+'), evidence: '+(D.evidence_sources.length?D.evidence_sources.map("
    "function(s){return s.source+' ('+s.samples+')';}).join(', '):'address overlap only')+"
    "', lines reported '+D.lines.length;\n"
    "var cols=[['#','index'],['Cacheline','address'],['Class','class'],['Conf','confidence'],"
    "['Data symbol','data_symbol'],['Fields','sharing_text'],"
    "['False offs','false_sharing_offsets'],"
    "['True offs','true_sharing_offsets'],['HITM','hitm.total'],['Lcl HITM','hitm.local'],['Rmt "
    "HITM','hitm.remote'],"
    "['Peer','peer.total'],['Rmt cache','remote_cache_hit'],['Records','records'],"
    "['Loads','loads'],['Stores','stores'],['Lat mean','latency.mean'],['p50','latency.p50'],"
    "['p99','latency.p99'],['Threads','threads'],['CPUs','cpus'],['Nodes','nodes'],"
    "['Evidence','evidence_text']];\n"
    "function get(o,p){p=p.split('.');for(var i=0;i<p.length;i++){if(o==null)return '';"
    "o=o[p[i]];}if(Array.isArray(o))return o.map(function(x){return typeof x==='number'&&"
    "p[0]!=='nodes'?'0x'+x.toString(16):x;}).join(' ');return o==null?'':o;}\n"
    "var tb=document.querySelector('#lines tbody'),th=document.querySelector('#lines thead');\n"
    "var hr=el('tr');cols.forEach(function(c,i){var h=el('th',{'data-col':i},c[0]);"
    "h.onclick=function(){sortBy(i,h);};hr.appendChild(h);});th.appendChild(hr);\n"
    "function fill(rows){tb.textContent='';rows.forEach(function(L){var tr=el('tr');"
    "cols.forEach(function(c){var v=get(L,c[1]);var td=el('td',{'data-col':c[1]},typeof "
    "v==='number'&&"
    "c[1]==='confidence'?v.toFixed(2):String(v));if(typeof v!=='number')td.className='l';"
    "if(c[1]==='class')td.className='l cls-'+v;if(c[1]==='evidence_text')td.className='ev';"
    "tr.appendChild(td);});tb.appendChild(tr);});}\n"
    "var rows=D.lines.slice(),sc=-1,asc=true;\n"
    "function sortBy(i,h){asc=(sc===i)?!asc:false;sc=i;var k=cols[i][1];"
    "rows.sort(function(a,b){var x=get(a,k),y=get(b,k);if(typeof x==='string'&&/^0x[0-9a-f]+$/"
    ".test(x)&&/^0x[0-9a-f]+$/.test(y)){x=parseInt(x,16);y=parseInt(y,16);}"
    "var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));"
    "return asc?r:-r;});Array.prototype.forEach.call(th.querySelectorAll('th'),function(t){"
    "t.className='';});h.className=asc?'asc':'desc';fill(rows);}\n"
    "fill(rows);\n"
    /* #sort=COLUMN[:asc] sorts on load (for links and tests) */
    "var m=/sort=([^:&]+)(:asc)?/.exec(decodeURIComponent(location.hash||''));if(m){"
    "cols.forEach(function(c,i){if(c[0]===m[1]){var h=th.querySelectorAll('th')[i];"
    "sortBy(i,h);if(m[2])sortBy(i,h);}});}\n"
    "var hm=document.getElementById('heatmaps'),od=document.getElementById('offsets');\n"
    "D.lines.slice(0,D.top).forEach(function(L){\n"
    " var offs={},thr={},cell={},maxv=1;\n"
    " L.entries.forEach(function(e){offs[e.offset]=offs[e.offset]||{f:0,t:0};"
    "if(e.sharing==='false'||e.sharing==='both')offs[e.offset].f=1;"
    "if(e.sharing==='true'||e.sharing==='both')offs[e.offset].t=1;"
    "var tk=e.pid+'/'+e.tid;thr[tk]=1;var ck=tk+'@'+e.offset;"
    "cell[ck]=cell[ck]||{n:0,w:0};cell[ck].n+=e.records;cell[ck].w+=e.stores;"
    "if(cell[ck].n>maxv)maxv=cell[ck].n;});\n"
    " var ol=Object.keys(offs).map(Number).sort(function(a,b){return a-b;});"
    "var tl=Object.keys(thr).sort();\n"
    " var box=el('div',{'class':'hm'});box.appendChild(el('div',null,'#'+L.index+' '+"
    "L.address+' '+L['class']+(L.data_symbol?' ('+L.data_symbol+')':'')));\n"
    " var t=el('table',{'class':'heatmap','data-line':L.address});var r0=el('tr');"
    "r0.appendChild(el('th',null,'pid/tid \\\\ off'));ol.forEach(function(o){r0.appendChild("
    "el('th',null,'0x'+o.toString(16)));});t.appendChild(r0);\n"
    " tl.forEach(function(tk){var r=el('tr');r.appendChild(el('th',null,tk));"
    "ol.forEach(function(o){var c=cell[tk+'@'+o];var td=el('td');if(c){var a=Math.sqrt(c.n/"
    "maxv);td.style.background='rgba(230,90,0,'+(0.15+0.85*a).toFixed(3)+')';"
    "td.textContent=c.w?'W':'';td.title=tk+' offset 0x'+o.toString(16)+': '+c.n+"
    "' samples, '+c.w+' stores';}if(offs[o].f)td.className='fs';else if(offs[o].t)"
    "td.className='ts';r.appendChild(td);});t.appendChild(r);});box.appendChild(t);"
    "hm.appendChild(box);\n"
    " var det=el('details');det.appendChild(el('summary',null,'#'+L.index+' '+L.address+' '+"
    "L['class']+', confidence '+L.confidence.toFixed(2)+', evidence: '+L.evidence_text));\n"
    " if(L.sharing_text)det.appendChild(el('div',{'class':'fields'},L.sharing_text));\n"
    " var ot=el('table');var h2=el('tr');['Offset','Sharing','Pid','Tid','Loads','Stores',"
    "'HITM','Peer','Lat','Code','Symbol','Source:Line','Data symbol','Object','Type'].forEach("
    "function(x){"
    "h2.appendChild(el('th',null,x));});ot.appendChild(h2);\n"
    " L.entries.forEach(function(e){var r=el('tr');[ '0x'+e.offset.toString(16),e.sharing,"
    "e.pid,e.tid,e.loads,e.stores,e.hitm.total,e.peer.total,e.latency_mean,e.ip,e.symbol||'',"
    "e.srcline||'',e.data_symbol||'',e.object?e.object+' +'+e.object_offset:'',e.type?e.type+' '+"
    "(e.type_offset<0?'':'+')+e.type_offset+' ('+(e.field||'no field')+')':''].forEach("
    "function(x,i){var td=el('td',null,String(x));"
    "if(i>=9)td.className='l';r.appendChild(td);});ot.appendChild(r);});det.appendChild(ot);"
    "\n if(L.callchains&&L.callchains.length){var ct=el('table',{'class':'callchains'});"
    "var h3=el('tr');['Period %','Samples','Call path (caller first)'].forEach(function(x){"
    "h3.appendChild(el('th',null,x));});ct.appendChild(h3);L.callchains.forEach(function(p){"
    "var r=el('tr');[p.percent.toFixed(2)+'%',p.samples,p.path].forEach(function(x,i){"
    "var td=el('td',null,String(x));if(i==2)td.className='l';r.appendChild(td);});"
    "ct.appendChild(r);});det.appendChild(el('div',null,'Call paths of the line'));"
    "det.appendChild(ct);}\n"
    "od.appendChild(det);\n"
    "});\n"
    "document.body.setAttribute('data-rendered','1');\n"
    "})();\n"
    "</script>\n</body></html>\n";

/*
 * @s for the page: @html, as HTML text (entities); else JSON inside a <script> element, where
 * '<', '>' and '&' become \u003c, \u003e and \u0026 (JSON has them only inside strings, where
 * the escape means the same character): no "</script", "<!--" or "<script" can appear, so a
 * name from the file can neither end the element nor switch the parser into its escaped states.
 */
static int add_escaped(struct hws_strbuf *sb, const char *s, size_t len, bool html)
{
	size_t i, start = 0;

	for (i = 0; i < len; i++) {
		const char *rep = NULL;

		switch (s[i]) {
		case '<':
			rep = html ? "&lt;" : "\\u003c";
			break;
		case '>':
			rep = html ? "&gt;" : "\\u003e";
			break;
		case '&':
			rep = html ? "&amp;" : "\\u0026";
			break;
		case '"':
			rep = html ? "&quot;" : NULL;
			break;
		default:
			break;
		}
		if (!rep)
			continue;
		hws_strbuf__add(sb, s + start, i - start);
		hws_strbuf__addstr(sb, rep);
		start = i + 1;
	}
	hws_strbuf__add(sb, s + start, len - start);
	return sb->toobig ? HWS_E_TOO_BIG : 0;
}

int hws__html_add(struct hws_strbuf *sb, const char *s)
{
	return add_escaped(sb, s, strlen(s), true);
}

int hws_c2c__render_html(const struct hws_c2c *c, const char *title, struct hws_strbuf *sb)
{
	struct hws_strbuf js;
	int err;

	hws_strbuf__init(&js, sb->cap); /* the page holds the JSON: the same bound */
	err = hws__c2c_render_json(c, &js, hws_c2c__top(c), false);
	if (err)
		goto out;
	/* the JSON ends with "}\n": add the heat-map line count before the brace */
	while (js.len && (js.buf[js.len - 1] == '\n' || js.buf[js.len - 1] == '}')) {
		js.len--;
		if (js.buf[js.len] == '}')
			break;
	}
	hws_strbuf__addstr(sb, page_head);
	add_escaped(sb, title ? title : "report", strlen(title ? title : "report"), true);
	hws_strbuf__addstr(sb, page_style);
	hws_strbuf__addstr(sb, page_body);
	hws_strbuf__addstr(sb, "<script type=\"application/json\" id=\"c2c-data\">");
	add_escaped(sb, js.buf ? js.buf : "{", js.len, false);
	hws_strbuf__addf(sb, ",\"top\":%u}</script>\n", hws_c2c__top(c));
	hws_strbuf__addstr(sb, page_script);
	err = sb->toobig ? HWS_E_TOO_BIG : 0;
out:
	hws_strbuf__release(&js);
	return err;
}
