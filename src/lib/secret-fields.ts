/*
 * Which fields of controller data (and of our own results) hold secrets. Three rules, in order
 * (docs/decisions.md, "Secret fields"):
 *
 * 1. A known harmless name that the patterns would catch is shown (HARMLESS_FIELDS).
 * 2. A name public sources give for a VPN, RADIUS, Wi-Fi or account secret is masked
 *    (SECRET_FIELDS), also where the patterns would miss it (`community`, `openvpn_configuration`).
 * 3. A name matching the patterns is masked: UniFi's `x_` prefix for fields it hides, and the words
 *    key, secret, password, passphrase, psk, private, token, pre-shared, credential, cookie.
 *
 * Values are looked at too: booleans are never masked (a flag like `x_has_ssh_hostkey` carries no
 * secret), and key material in any string is scrubbed by lib/secret-text.ts.
 */

/**
 * Secret-bearing names from public sources: go-unifi's generated field lists (network, wlan,
 * radius profile, setting_* and device), aiounifi, and the Network API docs. Most also match a
 * pattern; listing them pins them down should the patterns ever be narrowed.
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  // Site-to-site and remote-access VPN (networkconf): IPsec, OpenVPN, WireGuard, L2TP, PPTP.
  'x_ipsec_pre_shared_key',
  'ipsec_pre_shared_key',
  'x_openvpn_shared_secret_key',
  'openvpn_shared_secret_key',
  'openvpn_configuration',
  'openvpn_configuration_filename',
  'x_openvpn_password',
  'openvpn_password',
  'x_ca_key',
  'x_ca_crt',
  'x_dh_key',
  'x_server_key',
  'x_server_crt',
  'x_shared_client_key',
  'x_shared_client_crt',
  'x_auth_key',
  'x_wireguard_private_key',
  'wireguard_private_key',
  'wireguard_preshared_key',
  'wireguard_client_configuration_file',
  'wireguard_client_preshared_key',
  'wireguard_client_peer_public_key',
  'x_l2tp_password',
  'x_pptpc_password',
  'pptpc_password',
  'x_wan_password',
  'wan_password',
  // RADIUS (radiusprofile, wlanconf, networkconf 802.1X).
  'x_secret',
  'radius_secret',
  'x_radius_secret',
  'radius_das_secret',
  'radius_shared_secret',
  'shared_secret',
  'sharedSecret',
  // Wi-Fi (wlanconf, Integration API broadcasts).
  'x_passphrase',
  'passphrase',
  'wpa_psk',
  'sae_psk',
  'psk',
  'x_wep',
  'wep_key',
  'x_iapp_key',
  'private_preshared_keys',
  'x_mesh_psk',
  // Hotspot and guest portal, admin and device management, SNMP, DDNS.
  'x_password',
  'password',
  'x_shared_secret',
  'x_ssh_password',
  'x_ssh_keys',
  'x_mgmt_key',
  'x_authkey',
  'x_inform_authkey',
  'x_vwirekey',
  'syslog_key',
  'guest_token',
  'nfc_token',
  'community',
  'x_stripe_api_key',
  'x_paypal_password',
  'x_paypal_signature',
  'x_authorize_transactionkey',
  'x_quickpay_md5key',
  'x_facebook_app_secret',
  'x_google_client_secret',
  'x_api_token',
  'api_key',
  'apiKey',
]);

/**
 * Names the patterns catch that hold no secret, each seen in the project's fixtures: what they
 * hold is said beside them, and test/lib/secret-fields.test.ts checks every fixture field.
 */
/**
 * Fields of the bot's own results (not the controller's) that the patterns would catch:
 * get_client's `guest_authorization` says whether a hotspot guest is let through, no credential.
 */
export const HARMLESS_RESULT_FIELDS: ReadonlySet<string> = new Set(['guest_authorization']);

export const HARMLESS_FIELDS: ReadonlySet<string> = new Set([
  // Site Manager API: the cursor of the next page ("" or a UUID).
  'nextToken',
  // Admin record: when the password was last changed (a Unix time), not the password.
  'password_revision',
  // Admin role: "super_administrator".
  'system_key',
  // Firewall zone kind: "lan", "wan", "internal"…
  'zone_key',
]);

const SECRET_NAME =
  /^x_|key|secret|password|passphrase|passwd|psk|private|token|pre_?shared|credential|cookie|authorization/i;

const cache = new Map<string, boolean>();

/** Whether a field of this name holds a secret (its value, when not empty or a flag, is masked). */
export function isSecretField(name: string): boolean {
  const known = cache.get(name);
  if (known !== undefined) return known;
  const secret =
    !HARMLESS_FIELDS.has(name) &&
    !HARMLESS_RESULT_FIELDS.has(name) &&
    (SECRET_FIELDS.has(name) || SECRET_NAME.test(name));
  // Field names come from controller data: the cache stays small, but a hostile one is bounded too.
  if (cache.size < 10_000) cache.set(name, secret);
  return secret;
}

/** Whether this value of a secret field is masked: anything but nothing, "" and a boolean flag. */
export function isMaskedValue(value: unknown): boolean {
  return value !== '' && value !== null && value !== undefined && typeof value !== 'boolean';
}
