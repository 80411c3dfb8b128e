import type { ServerResponse } from 'node:http';

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:48px 16px;color:#1d2330}
main{max-width:340px;margin:0 auto;background:#fff;border-radius:8px;padding:24px 28px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.3em;margin:0 0 4px}p.sub{color:#5b6475;margin:0 0 20px;font-size:.9em}
label{display:block;font-size:.85em;margin:12px 0 4px}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:9px;border:1px solid #c5cad3;border-radius:4px;font-size:1em}
button{margin-top:18px;width:100%;padding:10px;border:0;border-radius:4px;background:#2f5bea;color:#fff;font-size:1em;cursor:pointer}
button.secondary{background:none;color:#5b6475;margin-top:8px}
.error{background:#fde8e8;color:#9b1c1c;padding:8px 10px;border-radius:4px;font-size:.9em}
`;

/** `body` must already be escaped; only `title` is escaped here. */
export function page(title: string, body: string, headExtra = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
${headExtra}
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // No form-action directive: browsers apply it to the redirect chain that
  // follows the login POST, which ends at the client's (foreign) redirect_uri.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(html);
}

export function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(JSON.stringify(body));
}
