/**
 * 站点名 (docs/decisions/names.md): the name a site's address carries, with the address it makes shown
 * beside it, checked as it is typed (the contracts' rules here, whether it is free on the server).
 */
import { type PublicConfigDto, siteName, siteUrl } from '@sitehall/contracts';
import { Form, Input, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import { projectsApi } from '../api/projects';
import { absoluteSiteUrl } from '../lib/site-address';

/** The rules of the field: the name's form, then (debounced by the item) whether it is free. */
export function siteNameRules(projectId: number | null): Rule[] {
  return [
    {
      validator: async (_rule, value: string | undefined) => {
        const name = value?.trim();
        // Empty: no name, the site is reached by its number.
        if (!name) return;
        const parsed = siteName.safeParse(name);
        if (!parsed.success) throw new Error(parsed.error.issues[0]?.message);
        let answer: Awaited<ReturnType<typeof projectsApi.siteName>>;
        try {
          answer = await projectsApi.siteName({
            name: parsed.data,
            ...(projectId !== null ? { project_id: projectId } : {}),
          });
        } catch {
          // The server decides when the form is sent; a failed check blocks nothing.
          return;
        }
        if (!answer.available && answer.message) throw new Error(answer.message);
      },
    },
  ];
}

/** The address a name gives, as the visitor will see it. */
export function SiteAddressPreview({ name, config }: { name: string | undefined; config: PublicConfigDto }) {
  const value = name?.trim().toLowerCase();
  if (!value || !siteName.safeParse(value).success) return null;
  const url = absoluteSiteUrl(
    siteUrl(
      { id: 0, name: value },
      {
        ...(config.sites_origin ? { sitesOrigin: config.sites_origin } : {}),
        sitesSubdomains: config.sites_subdomains,
      },
    ),
    config.sites_port,
  );
  return (
    <Typography.Text type="secondary" className="site-name-preview">
      访问地址：<Typography.Text code>{url}</Typography.Text>
    </Typography.Text>
  );
}

const SITE_NAME_KEPT = '站点名不能清空，只能改为其他名字';

/** The form item itself: name `site_name`. */
export function SiteNameItem({
  projectId,
  config,
  extra,
  required = false,
}: {
  projectId: number | null;
  config: PublicConfigDto;
  extra?: string;
  /** A site that has a name keeps one: it can be changed, not removed (docs/decisions/names.md). */
  required?: boolean;
}) {
  const form = Form.useFormInstance();
  const value = Form.useWatch('site_name', form) as string | undefined;
  return (
    <Form.Item
      label="站点名"
      name="site_name"
      rules={[
        ...(required ? [{ required: true, whitespace: true, message: SITE_NAME_KEPT }] : []),
        ...siteNameRules(projectId),
      ]}
      validateDebounce={400}
      extra={
        <>
          {extra && <div>{extra}</div>}
          {/* Only a name that may be used: one refused (站点名已被使用, live or on sending) is another site's address. */}
          {/* Its line is kept while empty: the address coming and going (a suggested name filled in,
              a check under way) moved the form's buttons under the pointer, and a click meant for
              上传 landed beside it (docs/decisions/web-app.md "The upload page"). */}
          <div className="site-name-preview-slot">
            <Form.Item noStyle shouldUpdate={() => true}>
              {() =>
                form.getFieldError('site_name').length === 0 && !form.isFieldValidating('site_name') ? (
                  <SiteAddressPreview name={value} config={config} />
                ) : null
              }
            </Form.Item>
          </div>
        </>
      }
    >
      <Input placeholder="例如：my-blog" autoComplete="off" spellCheck={false} maxLength={40} />
    </Form.Item>
  );
}
