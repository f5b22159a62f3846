import { AuditOutlined } from '@ant-design/icons';
import type { ProjectDto } from '@sitehall/contracts';
import { Button } from 'antd';
import { useEffect, useState } from 'react';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';

/** The decision card's id: the bar's button and the page's anchor lead to it. */
export const DECISION_ID = 'review-decision';

/** Whether any part of the element with `id` is on screen (false until known, and without IntersectionObserver). */
function useOnScreen(id: string): boolean {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const element = document.getElementById(id);
    if (!element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      setVisible(entries.some((entry) => entry.isIntersecting));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [id]);
  return visible;
}

/** Brings the decision card into view and puts the cursor in its first field. */
export function goToDecision() {
  const card = document.getElementById(DECISION_ID);
  if (!card) return;
  card.scrollIntoView?.({ block: 'start' });
  card.querySelector<HTMLElement>('input, textarea, button')?.focus({ preventScroll: true });
}

/**
 * A bar held at the bottom of the window while the decision card is out of view (docs/decisions/review.md
 * "Review detail"): on a phone the card comes after everything else, on a wide screen it scrolls away
 * with the top of the page. One click brings it back.
 */
export function DecisionBar({ project }: { project: ProjectDto }) {
  const decisionVisible = useOnScreen(DECISION_ID);
  if (decisionVisible) return null;
  return (
    <section className="review-decision-bar" aria-label="审核决定入口">
      <span className="review-decision-bar__status">
        <span>当前状态</span>
        <AdminStatusTag status={project.status} />
      </span>
      <Button type="primary" icon={<AuditOutlined aria-hidden />} onClick={goToDecision}>
        去审核决定
      </Button>
    </section>
  );
}
