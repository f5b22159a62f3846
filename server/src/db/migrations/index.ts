/**
 * The ordered list of migrations. One set for both engines: a migration receives the dialect
 * where a column type must differ. Add new ones at the end; never edit one that has shipped.
 */
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import * as m001 from './001_initial.js';
import * as m002 from './002_showcase_search.js';
import * as m003 from './003_cluster_leases.js';
import * as m004 from './004_showcase_statistics.js';
import * as m005 from './005_storage_quota.js';
import * as m006 from './006_content_risk.js';
import * as m007 from './007_name_sort_key.js';
import * as m008 from './008_session_end_reason.js';
import * as m009 from './009_download_only_files.js';
import * as m010 from './010_render_jobs.js';
import * as m011 from './011_api_tokens_deploys.js';
import * as m012 from './012_upload_source.js';
import * as m013 from './013_api_token_prefix.js';
import * as m014 from './014_upload_keys.js';
import * as m015 from './015_taken_down_status.js';
import * as m016 from './016_notifications.js';
import * as m017 from './017_site_analytics.js';
import * as m018 from './018_site_routing.js';
import * as m019 from './019_site_names.js';
import * as m020 from './020_deploy_site_name.js';
import * as m021 from './021_custom_domains.js';
import * as m024 from './024_content_check_traces.js';
import * as m026 from './026_lockouts_retention.js';
import * as m027 from './027_showcase_order_featured.js';
import * as m028 from './028_showcase_authors.js';
import * as m029 from './029_upload_key_requests.js';
import * as m030 from './030_render_turns.js';
import * as m031 from './031_render_turns_of_deleted_accounts.js';
import * as m032 from './032_deploy_base.js';
import * as m033 from './033_search_site_names.js';
import * as m034 from './034_initial_passwords.js';
import * as m035 from './035_gram_owners.js';
import * as m036 from './036_site_name_owners.js';
import * as m037 from './037_entry_grams.js';
import * as m038 from './038_gram_blooms.js';
import * as m039 from './039_content_prefix_index.js';
import * as m040 from './040_username_width_fold.js';
import * as m041 from './041_name_sort_numbers.js';
import * as m042 from './042_session_sign_in.js';
import * as m043 from './043_upload_key_payloads.js';
import type { MigrationDialect } from './helpers.js';

type DialectMigration = { up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> };

const all: Record<string, DialectMigration> = {
  '001_initial': m001,
  '002_showcase_search': m002,
  '003_cluster_leases': m003,
  '004_showcase_statistics': m004,
  '005_storage_quota': m005,
  '006_content_risk': m006,
  '007_name_sort_key': m007,
  '008_session_end_reason': m008,
  '009_download_only_files': m009,
  '010_render_jobs': m010,
  '011_api_tokens_deploys': m011,
  '012_upload_source': m012,
  '013_api_token_prefix': m013,
  '014_upload_keys': m014,
  '015_taken_down_status': m015,
  '016_notifications': m016,
  '017_site_analytics': m017,
  '018_site_routing': m018,
  '019_site_names': m019,
  '020_deploy_site_name': m020,
  '021_custom_domains': m021,
  '024_content_check_traces': m024,
  '026_lockouts_retention': m026,
  '027_showcase_order_featured': m027,
  '028_showcase_authors': m028,
  '029_upload_key_requests': m029,
  '030_render_turns': m030,
  '031_render_turns_of_deleted_accounts': m031,
  '032_deploy_base': m032,
  '033_search_site_names': m033,
  '034_initial_passwords': m034,
  '035_gram_owners': m035,
  '036_site_name_owners': m036,
  '037_entry_grams': m037,
  '038_gram_blooms': m038,
  '039_content_prefix_index': m039,
  '040_username_width_fold': m040,
  '041_name_sort_numbers': m041,
  '042_session_sign_in': m042,
  '043_upload_key_payloads': m043,
};

/** Every migration's name, in order: a database is current when all of them are recorded. */
export const migrationNames: readonly string[] = Object.keys(all);

export function migrationProvider(dialect: MigrationDialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(all)) out[name] = { up: (db) => m.up(db, dialect) };
      return out;
    },
  };
}
