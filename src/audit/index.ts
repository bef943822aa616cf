import type { AuditConfig } from '../config/audit.js';
import { packageVersion } from '../lib/package-version.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { AuditExporter } from './exporter.js';
import { type ExportSink, SyslogSink, WebhookSink } from './sinks.js';

export { AuditExporter } from './exporter.js';

/** The exporter for AUDIT_SYSLOG_URL and AUDIT_WEBHOOK_URL over this store's journal. */
export function auditExporter(config: AuditConfig, store: Store, logger: Logger): AuditExporter {
  const version = packageVersion();
  const sinks: ExportSink[] = [];
  if (config.syslog) {
    sinks.push(
      new SyslogSink({
        host: config.syslog.host,
        port: config.syslog.port,
        tls: config.syslog.tls,
        format: config.syslog.format,
        version,
        ...(config.syslog.caFile ? { caFile: config.syslog.caFile } : {}),
      }),
    );
  }
  if (config.webhook) sinks.push(new WebhookSink({ url: config.webhook.url, secret: config.webhook.secret }));
  const leases = store.leases?.();
  return new AuditExporter({
    feed: store.journalFeed(),
    data: store.data,
    ...(leases ? { leases } : {}),
    replicaId: store.changes().replicaId,
    sinks,
    logger: logger.child({ component: 'audit-export' }),
    ...(config.replayFrom !== undefined ? { replayFrom: config.replayFrom } : {}),
  });
}
