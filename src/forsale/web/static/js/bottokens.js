// @ts-check
// One's own profile (#/me): turning the account into a bot account, and a bot account's API tokens
// (docs/bot-api.md). The upgrade is for good and asks for the password again, and so does a new token (it outlives a
// password change: a borrowed session must not mint one). A new token's secret is shown once,
// in a read-only field to copy; the list shows each token's name, scopes and last use, and revokes it at once.
import { formDialog } from "./account.js";
import { call } from "./api.js";
import { h } from "./format.js";
import { dateTime, t } from "./i18n.js";

export const botApi = {
  become: (password) => call("POST", "/api/me/bot", { password }),
  tokens: () => call("GET", "/api/me/tokens"),
  create: (name, password) => call("POST", "/api/me/tokens", { name, password }),
  revoke: (id) => call("DELETE", `/api/me/tokens/${encodeURIComponent(id)}`),
};

/**
 * The panel: a person's account may become a bot account; a bot account manages its tokens.
 * @param {boolean} isBot
 * @param {() => void} reload shows the profile again (after the upgrade)
 */
export function botPanel(isBot, reload) {
  if (!isBot) {
    const become = h("button.btn", {
      type: "button",
      id: "become-bot",
      onclick: () =>
        formDialog({
          id: "bot-dialog",
          title: t("botaccount.becomeTitle"),
          submitLabel: t("botaccount.become"),
          danger: true,
          fields: [{ id: "bot-password", label: t("account.password"), type: "password", autocomplete: "current-password" }],
          submit: async (v) => {
            await botApi.become(v["bot-password"]);
            reload();
          },
        }),
    }, t("botaccount.become"));
    return h("section.panel", { id: "bot-account" }, h("h2", null, t("botaccount.title")), h("p.hint", null, t("botaccount.becomeHint")), h("div.row", null, become));
  }
  const list = h("ul.tables", { id: "bot-tokens" });
  const said = h("p.hint", { id: "bot-token-status", role: "status" });
  const secret = h("input", { type: "text", id: "bot-token-secret", readonly: true, hidden: true, "aria-label": t("botaccount.secretLabel") });
  const name = h("input", { type: "text", id: "bot-token-name", maxlength: 40, required: true, autocomplete: "off" });
  const password = h("input", { type: "password", id: "bot-token-password", required: true, autocomplete: "current-password" });

  async function show() {
    try {
      const { tokens } = await botApi.tokens();
      list.replaceChildren(
        ...(tokens.length
          ? tokens.map((tk) =>
              h(
                "li",
                { dataset: { token: tk.id } },
                h("span.what", null, tk.name, h("small", null, `${tk.scopes.join(", ")} · ${tk.last_used_at ? t("botaccount.lastUsed", { when: dateTime(tk.last_used_at) }) : t("botaccount.neverUsed")}`)),
                h("button.btn", { type: "button", onclick: () => revoke(tk.id) }, t("botaccount.revoke")),
              ),
            )
          : [h("li.empty", null, t("botaccount.noTokens"))]),
      );
    } catch (e) {
      said.textContent = e.message;
    }
  }

  async function revoke(id) {
    try {
      await botApi.revoke(id);
      said.textContent = t("botaccount.revoked");
      secret.hidden = true;
      await show();
    } catch (e) {
      said.textContent = e.message;
    }
  }

  const form = h(
    "form.form",
    {
      id: "bot-token-form",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const made = await botApi.create(name.value.trim(), password.value);
          password.value = "";
          secret.value = made.token;
          secret.hidden = false;
          secret.select();
          said.textContent = t("botaccount.copyNow");
          name.value = "";
          await show();
        } catch (e) {
          said.textContent = e.message;
        }
      },
    },
    h("label", { for: "bot-token-name" }, t("botaccount.tokenName"), name),
    h("label", { for: "bot-token-password" }, t("account.password"), password),
    h("div.row", null, h("button.btn.primary", { type: "submit", id: "bot-token-create" }, t("botaccount.create"))),
    secret,
    said,
  );
  show();
  return h("section.panel", { id: "bot-account" }, h("h2", null, t("botaccount.tokens")), h("p.hint", null, t("botaccount.tokensHint")), list, form);
}
