// @ts-check
// The page a confirmation email's link opens (#/confirm/<token>): one button that confirms the address.
// A button rather than confirming on arrival: a mail scanner that opens links must confirm nothing
// (forsale.server.people.emails). The token travels in the fragment, which no server or proxy logs.
import { call } from "./api.js";
import { h } from "./format.js";
import { t } from "./i18n.js";

export function showConfirm(ctx, token) {
  const said = h("p", { id: "confirm-status", role: "status" });
  const button = h(
    "button.btn",
    {
      type: "button",
      id: "confirm-email",
      onclick: async () => {
        button.disabled = true;
        try {
          const res = await call("POST", "/api/email/confirm", { token });
          said.textContent = t("confirm.done", { email: res.email });
        } catch (e) {
          said.textContent = e.message;
          button.disabled = false;
        }
      },
    },
    t("confirm.button"),
  );
  ctx.app.replaceChildren(h("section.panel", { id: "confirm" }, h("h2", null, t("confirm.title")), h("p", null, t("confirm.hint")), button, said));
  return null;
}
