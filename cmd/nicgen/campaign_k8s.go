package main

import (
	"fmt"
	"path/filepath"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// k8sFlags are the Kubernetes engine's settings: the image whose nicgen
// runs the tasks, and the claim of the volume that holds the campaign
// folder (mounted at the folder's own path, so the scripts' paths hold).
type k8sFlags struct {
	image, claim string
	parallelism  int
}

// k8sName is a Job name of the campaign: lower case, at most 63 bytes.
func k8sName(spec campaignSpec, suffix string) string {
	n := fmt.Sprintf("nicgen-%s-%s%s", spec.Kind, spec.Block, suffix)
	b := []byte(n)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(b)
}

// k8sJobs are the campaign's Kubernetes Jobs: an Indexed Job whose
// completion index is the task (JOB_COMPLETION_INDEX), each index retried
// alone (backoffLimitPerIndex) and the Job not failed at the first failed
// index, and the merge Job, which submit-k8s.sh applies once the tasks'
// Job has completed or failed.
func k8sJobs(spec campaignSpec, dir string, k k8sFlags) (tasks, merge []byte, err error) {
	record, command := taskCommand(spec, dir)
	script := fmt.Sprintf("set -eu\ni=${JOB_COMPLETION_INDEX:?run by an Indexed Job}\nif [ -s \"%s\" ]; then echo \"task ${i}: its record exists, skipped\"; exit 0; fi\nexec %s\n",
		record, command)
	cpus := resource.MustParse(fmt.Sprint(max(spec.Jobs, 1)))
	volume := []corev1.Volume{{Name: "campaign", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: k.claim}}}}
	mount := []corev1.VolumeMount{{Name: "campaign", MountPath: dir}}
	container := func(name string, sh string) corev1.Container {
		return corev1.Container{Name: name, Image: k.image, Command: []string{"/bin/sh", "-c", sh}, VolumeMounts: mount,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpus}}}
	}
	indexed := batchv1.IndexedCompletion
	n := int32(spec.Tasks)
	par := int32(min(max(k.parallelism, 1), spec.Tasks))
	perIndex, zero := int32(2), int32(0)
	maxFailed := n
	job := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: k8sName(spec, ""), Labels: map[string]string{"app.kubernetes.io/name": "nicgen", "nicgen/campaign": k8sName(spec, "")}},
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &n, Parallelism: &par,
			BackoffLimitPerIndex: &perIndex, MaxFailedIndexes: &maxFailed,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{container("task", script)}, Volumes: volume}},
		},
	}
	if tasks, err = yaml.Marshal(job); err != nil {
		return nil, nil, err
	}
	mjob := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: k8sName(spec, "-merge"), Labels: map[string]string{"app.kubernetes.io/name": "nicgen", "nicgen/campaign": k8sName(spec, "")}},
		Spec: batchv1.JobSpec{
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{container("merge", fmt.Sprintf("exec %s campaign merge %s", shellQuote(spec.Nicgen), shellQuote(dir)))}, Volumes: volume}},
		},
	}
	if merge, err = yaml.Marshal(mjob); err != nil {
		return nil, nil, err
	}
	return tasks, merge, nil
}

// k8sSubmit applies the tasks' Job, waits until it has completed or
// failed, then applies the merge Job and waits for it.
func k8sSubmit(spec campaignSpec, dir string) []byte {
	t, m := k8sName(spec, ""), k8sName(spec, "-merge")
	return []byte(fmt.Sprintf(`#!/bin/sh
# nicgen campaign: applies the tasks' Indexed Job, then, once it has
# completed or failed, the merge Job, and prints the merge's log
set -eu
kubectl apply -f %s
until kubectl get job %s -o jsonpath='{.status.conditions[?(@.status=="True")].type}' | grep -Eq 'Complete|Failed'; do sleep 10; done
kubectl apply -f %s
until kubectl get job %s -o jsonpath='{.status.conditions[?(@.status=="True")].type}' | grep -Eq 'Complete|Failed'; do sleep 5; done
kubectl logs job/%s
kubectl get job %s -o jsonpath='{.status.conditions[?(@.status=="True")].type}' | grep -q Complete
`, shellQuote(filepath.Join(dir, "tasks.yaml")), t, shellQuote(filepath.Join(dir, "merge.yaml")), m, m, m))
}
