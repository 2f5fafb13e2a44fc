/** The shop's whole look: a few rules, inline in every page, no framework or web font. */
export const STYLE = `
:root{--ink:#2b2118;--muted:#7a6a5c;--line:#e8ded3;--paper:#fffaf4;--brand:#6f3b1f;--ok:#2f7d4f;--warn:#a86a12;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;background:var(--paper);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
header{background:var(--brand);color:#fff}
header .bar{max-width:60rem;margin:auto;padding:.9rem 1.25rem;display:flex;align-items:baseline;gap:1rem}
header a{color:#fff;text-decoration:none;font-weight:700;font-size:1.25rem;letter-spacing:.02em}
header span{opacity:.8;font-size:.9rem}
main{max-width:60rem;margin:auto;padding:1.5rem 1.25rem 3rem}
a{color:var(--brand)}
h1{font-size:1.6rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .6rem}
.products{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1rem}
.product{background:#fff;border:1px solid var(--line);border-radius:.75rem;padding:1.1rem;display:flex;flex-direction:column;gap:.4rem}
.product .name{font-weight:600}.product .price{font-size:1.35rem;font-weight:700}
button{font:inherit;cursor:pointer;border:0;border-radius:.5rem;padding:.55rem 1rem;background:var(--brand);color:#fff;font-weight:600}
button:hover{filter:brightness(1.15)}button.secondary{background:#fff;color:var(--bad);border:1px solid var(--bad)}
label{display:block;margin-bottom:1rem;color:var(--muted)}
input{font:inherit;padding:.45rem .6rem;border:1px solid var(--line);border-radius:.4rem;min-width:18rem;margin-left:.4rem}
.card{background:#fff;border:1px solid var(--line);border-radius:.75rem;padding:1.1rem 1.25rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:.8rem 0}dt{color:var(--muted)}dd{margin:0}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line);border-radius:.75rem;overflow:hidden;font-size:.92rem}
th,td{text-align:left;padding:.5rem .75rem;border-bottom:1px solid var(--line)}th{color:var(--muted);font-weight:600;background:#fbf6f0}
tr:last-child td{border-bottom:0}td{white-space:nowrap}code{font:.8rem ui-monospace,SFMono-Regular,Menlo,monospace}
.status{display:inline-block;padding:.1rem .6rem;border-radius:999px;font-size:.85rem;font-weight:600;background:#f1e9e0}
.status.paid,.status.refunded{background:#e3f3e8;color:var(--ok)}
.status.awaiting_payment,.status.refund_requested{background:#fbf0dc;color:var(--warn)}
.status.disputed,.status.dispute_lost{background:#fbe4e2;color:var(--bad)}
.status.dispute_won,.status.inquiry_closed{background:#e3f3e8;color:var(--ok)}
.status.payment_failed,.status.refund_failed{background:#fbe4e2;color:var(--bad)}
[role=alert]{background:#fbe4e2;color:var(--bad);padding:.6rem .9rem;border-radius:.5rem}
.muted{color:var(--muted)}
`;
