import {
  AppstoreOutlined,
  ArrowRightOutlined,
  CloudUploadOutlined,
  DashboardOutlined,
  FolderOpenOutlined,
  GlobalOutlined,
  LoginOutlined,
  SafetyCertificateOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';
import { PlainLinkButton } from '../../components/PlainLinkButton';
import { type FromState, useAuth } from '../../hooks/useAuth';
import { useDocumentTitle } from '../../hooks/useDocumentTitle';
import { useTouchScreen } from '../../hooks/useTouchScreen';

interface Feature {
  title: string;
  text: string;
  icon: ReactNode;
  tone: string;
}

const features: Feature[] = [
  {
    title: '简单上传',
    text: '拖拽压缩包、网页文件或整个文件夹即可上传，系统自动识别入口页面。',
    icon: <CloudUploadOutlined aria-hidden />,
    tone: 'indigo',
  },
  {
    title: '项目管理',
    text: '集中查看每个项目的审核状态与访问统计，随时更新版本或删除项目。',
    icon: <FolderOpenOutlined aria-hidden />,
    tone: 'sky',
  },
  {
    title: '公开展示',
    text: '审核通过后获得独立访问地址，并在公开展厅中展示给所有访客。',
    icon: <GlobalOutlined aria-hidden />,
    tone: 'emerald',
  },
  {
    title: '安全可靠',
    text: '上传时校验文件类型，发布前由管理员审核内容，站点在隔离环境中运行。',
    icon: <SafetyCertificateOutlined aria-hidden />,
    tone: 'amber',
  },
];

const TOUCH_UPLOAD_TEXT = '选择压缩包、网页文件或整个文件夹即可上传，系统自动识别入口页面。';

const steps = [
  { title: '上传站点', text: '提交压缩包或网页文件，填写项目名称与简介。' },
  { title: '管理员审核', text: '管理员检查文件与内容，通过或说明修改意见。' },
  { title: '上线展示', text: '通过后站点立即上线，并出现在公开展厅中。' },
];

/** A decorative picture of the showcase; it holds no data. */
function HeroIllustration() {
  return (
    <div className="hero-art" aria-hidden="true">
      <div className="hero-art__window">
        <div className="hero-art__bar">
          <span />
          <span />
          <span />
          <div className="hero-art__address">/sites/…/index.html</div>
        </div>
        <div className="hero-art__grid">
          {['a', 'b', 'c', 'd'].map((key) => (
            <div key={key} className="hero-art__tile">
              <div className={`hero-art__thumb hero-art__thumb--${key}`} />
              <div className="hero-art__line" />
              <div className="hero-art__line hero-art__line--short" />
            </div>
          ))}
        </div>
      </div>
      <div className="hero-art__badge hero-art__badge--review">
        <SafetyCertificateOutlined /> 审核通过
      </div>
      <div className="hero-art__badge hero-art__badge--live">
        <GlobalOutlined /> 已上线
      </div>
    </div>
  );
}

/** 开始使用 signs a visitor in, then leads them where their role starts (RouteGuards.startPath). */
const startState: FromState = { start: true };

export function HomePage() {
  useDocumentTitle();
  const { isAuthenticated } = useAuth();
  // On a phone nothing is dragged: the upload feature says to choose (as the upload zone does).
  const touch = useTouchScreen();
  const shown = touch
    ? features.map((f) => (f.title === '简单上传' ? { ...f, text: TOUCH_UPLOAD_TEXT } : f))
    : features;

  return (
    <div className="home">
      <section className="hero" aria-labelledby="hero-title">
        <div className="hero__inner">
          <div className="hero__text">
            <span className="hero__eyebrow">静态网站托管 · 审核 · 展示</span>
            <h1 id="hero-title" className="hero__title">
              把你的静态网站，
              <br />
              搬进<span className="hero__highlight">站点展厅</span>
            </h1>
            <p className="hero__lead">
              上传网页作品，经管理员审核后获得独立访问地址，并在公开展厅中与所有人分享。
            </p>
            <div className="hero__actions">
              {isAuthenticated ? (
                <>
                  <PlainLinkButton
                    to="/dashboard"
                    variant="primary"
                    size="large"
                    icon={<DashboardOutlined aria-hidden />}
                  >
                    进入控制台
                  </PlainLinkButton>
                  <PlainLinkButton to="/upload" size="large" icon={<CloudUploadOutlined aria-hidden />}>
                    上传项目
                  </PlainLinkButton>
                </>
              ) : (
                <>
                  <PlainLinkButton
                    to="/login"
                    state={startState}
                    variant="primary"
                    size="large"
                    icon={<ArrowRightOutlined aria-hidden />}
                  >
                    开始使用
                  </PlainLinkButton>
                  <PlainLinkButton to="/public" size="large" icon={<AppstoreOutlined aria-hidden />}>
                    浏览项目
                  </PlainLinkButton>
                </>
              )}
            </div>
          </div>
          <HeroIllustration />
        </div>
      </section>

      <section className="home-section" aria-labelledby="features-title">
        <div className="home-section__head">
          <h2 id="features-title" className="home-section__title">
            为静态站点准备的一站式平台
          </h2>
          <p className="home-section__lead">从上传到上线，每一步都清晰可见。</p>
        </div>
        {/* Plain markup rather than antd's cards and text: the home page is the first load. */}
        <div className="feature-grid">
          {shown.map((feature) => (
            <div key={feature.title} className="feature-card">
              <div className={`feature-card__icon feature-card__icon--${feature.tone}`}>{feature.icon}</div>
              <h3 className="feature-card__title">{feature.title}</h3>
              <p className="feature-card__text">{feature.text}</p>
            </div>
          ))}
        </div>
      </section>

      <section className="home-section home-section--steps" aria-labelledby="steps-title">
        <div className="home-section__head">
          <h2 id="steps-title" className="home-section__title">
            三步上线
          </h2>
        </div>
        <ol className="steps">
          {steps.map((step, index) => (
            <li key={step.title} className="steps__item">
              <span className="steps__number" aria-hidden="true">
                {index + 1}
              </span>
              <div>
                <div className="steps__title">{step.title}</div>
                <div className="steps__text">{step.text}</div>
              </div>
            </li>
          ))}
        </ol>
      </section>

      <section className="cta" aria-labelledby="cta-title">
        <div className="cta__inner">
          {isAuthenticated ? (
            <>
              <div>
                <h2 id="cta-title" className="cta__title">
                  继续打造你的下一个站点
                </h2>
                <p className="cta__text">在“我的项目”中查看审核进度，或到展厅看看其他人的作品。</p>
              </div>
              <div className="cta__actions">
                <PlainLinkButton to="/projects" size="large" icon={<FolderOpenOutlined aria-hidden />}>
                  查看我的项目
                </PlainLinkButton>
                <PlainLinkButton
                  to="/public"
                  size="large"
                  variant="ghost"
                  icon={<AppstoreOutlined aria-hidden />}
                >
                  浏览展厅
                </PlainLinkButton>
              </div>
            </>
          ) : (
            <>
              <div>
                <h2 id="cta-title" className="cta__title">
                  准备好展示你的作品了吗？
                </h2>
                <p className="cta__text">登录后即可上传站点。平台不开放自助注册，账号由管理员创建。</p>
              </div>
              <div className="cta__actions">
                <PlainLinkButton to="/login" size="large" icon={<LoginOutlined aria-hidden />}>
                  立即登录
                </PlainLinkButton>
                <PlainLinkButton
                  to="/public"
                  size="large"
                  variant="ghost"
                  icon={<ArrowRightOutlined aria-hidden />}
                >
                  浏览展厅
                </PlainLinkButton>
              </div>
            </>
          )}
        </div>
      </section>
    </div>
  );
}
